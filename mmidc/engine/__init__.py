"""Runner-side pieces: safe checkpoint loading, atomic writes, re-seeding."""
from .atomic_backend import AtomicLocalBackend
from .checkpoint_safety import allow_mmengine_checkpoint_globals
from .reseed_hook import EpochReseedHook

__all__ = [
    'AtomicLocalBackend', 'allow_mmengine_checkpoint_globals',
    'EpochReseedHook'
]
