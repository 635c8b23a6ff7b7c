"""mmidc_lab.benchmarks.measure: the matmul peak, FLOP counting and timing."""
import pytest
import torch

from mmidc_lab.benchmarks.measure import (count_flops, fraction, matmul_peak,
                                      short_op_name, time_call)


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


def test_short_op_name():
    """A CUDA kernel's demangled signature (as the profiler on an H100 gave
    it) becomes its function name and functors; ATen names stay."""
    assert short_op_name('aten::mm') == 'aten::mm'
    assert short_op_name('Optimizer.step#AdamW.step') == 'Optimizer.step#AdamW.step'
    kernel = ('void at::native::vectorized_elementwise_kernel<8, at::native::Binary'
              'Functor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::'
              'binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, '
              'at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, '
              'at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)')
    assert short_op_name(kernel) == (
        'at::native::vectorized_elementwise_kernel [BinaryFunctor, MulFunctor]')
    long_plain = 'sm90_xmma_gemm_' + 'x' * 200
    assert len(short_op_name(long_plain)) == 90
    assert short_op_name(long_plain).startswith('sm90_xmma_gemm_')
