"""mmidc.benchmarks.measure: the matmul peak, FLOP counting and timing."""
import pytest
import torch

from mmidc.benchmarks.measure import (count_flops, fraction, matmul_peak,
                                      time_call)


def test_matmul_peak_and_flops():
    peak = matmul_peak('fp32', size=256, repeats=3)
    assert peak['gflops'] >= peak['median_gflops']  # best call vs median
    a, b = torch.randn(8, 16), torch.randn(16, 4)
    assert count_flops(lambda: a @ b)['total'] == 2 * 8 * 16 * 4
    timing = time_call(lambda: a @ b, steps=2, warmup=0)
    assert timing['steps'] == 2 and timing['wall_min_s'] <= timing['wall_s']
    with pytest.raises(ValueError, match='dtype'):
        matmul_peak('int8', size=8)
    assert fraction(1, 3) == 0.333 and fraction(1, 0) is None
