"""mmidc.benchmarks.e2e: the arithmetic of the end-to-end rows against hand
computations (the runs themselves: tests/test_tools/test_benchmark.py)."""
import pytest

from mmidc.benchmarks.e2e import steady_state


def test_steady_state_arithmetic():
    """Windows of 10 iterations (MMEngine logs their means); the first two
    are warm-up; the last holds 5 iterations."""
    windows = [dict(step=10, time=9.0, data_time=1.0),
               dict(step=20, time=1.0, data_time=0.5),
               dict(step=30, time=0.5, data_time=0.1),
               dict(step=40, time=0.5, data_time=0.05),
               dict(step=45, time=0.8, data_time=0.2)]
    row = steady_state(windows, batch=16, skip=2)
    # by hand: 25 iterations in 10*0.5 + 10*0.5 + 5*0.8 = 14 s; data 2.5 s
    assert row['iters'] == 25
    assert row['iter_s'] == pytest.approx(14 / 25)
    assert row['data_share'] == pytest.approx(2.5 / 14, abs=1e-3)
    assert row['pairs_per_s'] == pytest.approx(16 * 25 / 14, abs=0.1)
    assert row['first_window_iter_s'] == 9.0
    with pytest.raises(ValueError, match='too few'):
        steady_state(windows[:2], batch=16, skip=2)
