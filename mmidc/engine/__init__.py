"""Runner-side pieces: safe checkpoint loading, atomic writes, re-seeding,
bf16 autocast, logging without a per-step device sync, compile timing."""
from .atomic_backend import AtomicLocalBackend
from .autocast_optim_wrapper import AutocastOptimWrapper
from .checkpoint_safety import allow_mmengine_checkpoint_globals
from .compile_timer_hook import CompileTimerHook
from .deferred_runtime_info_hook import DeferredRuntimeInfoHook
from .reseed_hook import EpochReseedHook

__all__ = [
    'AtomicLocalBackend', 'AutocastOptimWrapper',
    'allow_mmengine_checkpoint_globals', 'CompileTimerHook',
    'DeferredRuntimeInfoHook', 'EpochReseedHook',
]
