"""Measurement helpers of the speed benchmark.

Model-agnostic pieces: the machine's description and load, timing a callable
(wall-clock and process CPU time), the dense matmul peak of a dtype, FLOPs
counted with :class:`torch.utils.flop_counter.FlopCounterMode` and the top
operators of a :mod:`torch.profiler` trace.
"""
import os
import platform
import re
import statistics
import subprocess
import time
from typing import Callable, Dict, List, Optional

import torch
from torch.utils.flop_counter import FlopCounterMode

__all__ = ['machine_info', 'load_average', 'synchronize', 'time_call',
           'matmul_peak', 'count_flops', 'top_ops', 'short_op_name', 'fraction']

DTYPES = dict(fp32=torch.float32, bf16=torch.bfloat16, fp16=torch.float16)


def _cpu_model() -> str:
    try:
        out = subprocess.run(['lscpu'], capture_output=True, text=True,
                             timeout=10).stdout
        for line in out.splitlines():
            if line.startswith('Model name:'):
                return line.split(':', 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or 'unknown'


def _cpu_flags() -> List[str]:
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    return line.split(':', 1)[1].split()
    except OSError:
        pass
    return []


def machine_info(device: str = 'cpu') -> Dict:
    """CPU model, cores, the ISA extensions that matter for bf16, versions."""
    flags = set(_cpu_flags())
    info = dict(
        cpu_model=_cpu_model(), cpu_count=os.cpu_count(),
        torch_threads=torch.get_num_threads(), torch=torch.__version__,
        python=platform.python_version(),
        avx512f='avx512f' in flags, avx512_bf16='avx512_bf16' in flags,
        amx_bf16='amx_bf16' in flags, mkldnn=torch.backends.mkldnn.is_available(),
        device=device, gpu=None)
    if device.startswith('cuda'):
        info['gpu'] = torch.cuda.get_device_name(torch.device(device))
    return info


def load_average() -> float:
    """The 1-minute load average (other jobs on a shared machine)."""
    return round(os.getloadavg()[0], 2)


def synchronize(device: str) -> None:
    if str(device).startswith('cuda'):
        torch.cuda.synchronize()


def time_call(fn: Callable[[], object], steps: int, warmup: int = 1,
              device: str = 'cpu') -> Dict:
    """Run ``fn`` ``warmup + steps`` times; statistics of the timed runs.

    Returns ``dict(wall_s, wall_min_s, cpu_s, steps, load)``: median and
    minimum wall-clock seconds per call, mean process CPU seconds per call
    (all threads; on a shared machine the steadier of the two) and the load
    average at the end.
    """
    if steps < 1:
        raise ValueError(f'steps must be >= 1, got {steps}')
    for _ in range(warmup):
        fn()
    synchronize(device)
    wall, cpu = [], []
    for _ in range(steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        synchronize(device)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return dict(wall_s=statistics.median(wall), wall_min_s=min(wall),
                cpu_s=sum(cpu) / len(cpu), steps=steps, load=load_average())


def matmul_peak(dtype: str = 'fp32', size: int = 2048, repeats: int = 5,
                device: str = 'cpu') -> Dict:
    """Dense matmul throughput of ``[size, size] @ [size, size]`` in GFLOP/s.

    The best of ``repeats`` calls (after one warm-up) is the peak: the
    machine's practical limit for this dtype, not the datasheet's.
    ``cpu_time_gflops`` divides by process CPU time over the thread count
    instead (less sensitive to other jobs taking the cores).
    """
    if dtype not in DTYPES:
        raise ValueError(f'dtype must be one of {sorted(DTYPES)}, got {dtype!r}')
    a = torch.randn(size, size, device=device).to(DTYPES[dtype])
    b = torch.randn(size, size, device=device).to(DTYPES[dtype])
    timing = time_call(lambda: a @ b, steps=repeats, warmup=1, device=device)
    flops = 2 * size ** 3
    cpu_busy = timing['cpu_s'] / torch.get_num_threads()  # seconds of all cores
    return dict(dtype=dtype, size=size, gflops=round(flops / timing['wall_min_s'] / 1e9, 1),
                median_gflops=round(flops / timing['wall_s'] / 1e9, 1),
                cpu_time_gflops=round(flops / cpu_busy / 1e9, 1),
                load=timing['load'])


def count_flops(fn: Callable[[], object]) -> Dict:
    """FLOPs of one call of ``fn`` (matmuls, convolutions, attention).

    Returns ``dict(total=..., by_op={op: flops})``; element-wise operators
    and the optimizer are not counted (FlopCounterMode's convention).
    """
    counter = FlopCounterMode(display=False)
    with counter:
        fn()
    by_op = {str(op).split('.')[-2] if str(op).count('.') > 1 else str(op): n
             for op, n in counter.get_flop_counts().get('Global', {}).items()}
    return dict(total=int(counter.get_total_flops()), by_op=by_op)


def top_ops(fn: Callable[[], object], n: int = 10,
            device: str = 'cpu') -> List[Dict]:
    """The ``n`` operators with the most self time in one call of ``fn``."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.startswith('cuda'):
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        fn()
        synchronize(device)
    events = prof.key_averages()
    attr = ('self_device_time_total' if device.startswith('cuda')
            else 'self_cpu_time_total')
    total = sum(getattr(e, attr) for e in events) or 1.0
    rows = sorted(events, key=lambda e: getattr(e, attr), reverse=True)[:n]
    return [dict(op=short_op_name(e.key), calls=e.count,
                 self_ms=round(getattr(e, attr) / 1e3, 1),
                 share=round(getattr(e, attr) / total, 3)) for e in rows]


def short_op_name(name: str, limit: int = 90) -> str:
    """A profiler key fit for a table row.

    ATen operators (``aten::mm``) stay as they are; a CUDA kernel's
    demangled signature (``void at::native::elementwise_kernel<128, 4,
    ...MulFunctor<float>...>(int, ...)``, often over 1,000 characters) becomes
    its function name and the functors or reductions in its template
    arguments: ``at::native::vectorized_elementwise_kernel
    [BinaryFunctor, MulFunctor]``.
    """
    if len(name) <= limit and '<' not in name:
        return name
    body = name[5:] if name.startswith('void ') else name
    cut = min((i for i in (body.find('<'), body.find('(')) if i >= 0),
              default=len(body))
    base = body[:cut].strip()
    parts = []
    for word in re.findall(r'[A-Za-z_][A-Za-z0-9_]*', body[cut:]):
        if re.search(r'(Functor|functor|Op|_kernel|_kernel_cuda|Kernel)$', word) \
                and word not in parts and word != base.split('::')[-1]:
            parts.append(word)
    short = base + (f' [{", ".join(parts[:3])}]' if parts else '')
    return short if len(short) <= limit else short[:limit - 3] + '...'


def fraction(part: float, whole: Optional[float]) -> Optional[float]:
    """``part / whole`` rounded to 3 places (None when ``whole`` is 0/None)."""
    return round(part / whole, 3) if whole else None
