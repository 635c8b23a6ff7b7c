"""mmidc_lab.benchmarks.e2e: the arithmetic of the end-to-end rows against hand
computations (the runs themselves: tests/test_lab/test_benchmark.py)."""
import pytest

from mmidc_lab.benchmarks import e2e
from mmidc_lab.benchmarks.e2e import steady_state


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


def test_phases_from_stamped_lines():
    stamped = [(2.0, 'System environment:'),
               (5.5, '11/28 - mmengine - INFO - Checkpoints will be saved to /w.'),
               (9.0, '11/28 - mmengine - INFO - Epoch(train) [1][10/60] time: 0.1'),
               (20.0, '11/28 - mmengine - INFO - Epoch(train) [1][60/60] time: 0.1'),
               (20.1, '11/28 - mmengine - INFO - Exp name: x')]
    assert e2e.phases(stamped, wall=31.0) == dict(
        startup_s=5.5, to_first_log_s=3.5, shutdown_s=11.0)
    # a run that logged no window: only the start-up is known
    assert e2e.phases(stamped[:2], wall=8.0) == dict(startup_s=5.5)
