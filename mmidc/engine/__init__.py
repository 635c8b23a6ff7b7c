"""Runner-side pieces: safe checkpoint loading, atomic writes, re-seeding,
bf16 autocast on CPU."""
from .atomic_backend import AtomicLocalBackend
from .autocast_optim_wrapper import AutocastOptimWrapper
from .checkpoint_safety import allow_mmengine_checkpoint_globals
from .reseed_hook import EpochReseedHook

__all__ = [
    'AtomicLocalBackend', 'AutocastOptimWrapper',
    'allow_mmengine_checkpoint_globals', 'EpochReseedHook',
]
