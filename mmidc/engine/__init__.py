"""Runner-side pieces: safe checkpoint loading, atomic writes, re-seeding,
bf16 autocast on CPU, BERT's optimizer and schedules, the logit-scale clamp."""
from .atomic_backend import AtomicLocalBackend
from .autocast_optim_wrapper import AutocastOptimWrapper
from .checkpoint_safety import allow_mmengine_checkpoint_globals
from .logit_scale_clamp_hook import LogitScaleClampHook
from .optimizers import BertAdam, NoDecayOptimWrapperConstructor
from .reseed_hook import EpochReseedHook
from .schedulers import BertWarmupLR, bert_warmup_factor

__all__ = [
    'AtomicLocalBackend', 'AutocastOptimWrapper',
    'allow_mmengine_checkpoint_globals', 'EpochReseedHook',
    'LogitScaleClampHook', 'BertAdam', 'NoDecayOptimWrapperConstructor',
    'BertWarmupLR', 'bert_warmup_factor',
]
