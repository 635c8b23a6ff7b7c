"""Runner-side pieces: atomic writes, a checkpoint hook safe against kills,
a stop at non-finite losses, re-seeding, bf16 autocast, logging without a
per-step device sync, compile timing, BERT's optimizer and schedules, the
logit-scale clamp, the loaders' workers stopped at the end of a run, a
warm-up over a share of the run, a warning when a run ends before its
warm-up peaks and one when its data sets read none of its config's folders.
Safe checkpoint loading is :mod:`mmidc.utils`'."""
from .atomic_backend import AtomicLocalBackend
from .autocast_optim_wrapper import AutocastOptimWrapper
from .checkpoint_hook import SafeCheckpointHook, find_resume_checkpoint
from .compile_timer_hook import CompileTimerHook
from .data_root_check_hook import DataRootCheckHook
from .deferred_runtime_info_hook import DeferredRuntimeInfoHook
from .loader_shutdown_hook import LoaderShutdownHook
from .logit_scale_clamp_hook import LogitScaleClampHook
from .nonfinite_loss_hook import NonFiniteLossError, NonFiniteLossHook
from .optimizers import BertAdam, NoDecayOptimWrapperConstructor
from .reseed_hook import EpochReseedHook
from .schedulers import BertWarmupLR, RunShareWarmupLR, bert_warmup_factor
from .warmup_peak_hook import WarmupPeakHook

__all__ = [
    'AtomicLocalBackend', 'AutocastOptimWrapper', 'CompileTimerHook',
    'DataRootCheckHook',
    'DeferredRuntimeInfoHook', 'EpochReseedHook', 'LoaderShutdownHook',
    'LogitScaleClampHook',
    'BertAdam', 'NoDecayOptimWrapperConstructor', 'BertWarmupLR',
    'bert_warmup_factor', 'SafeCheckpointHook', 'find_resume_checkpoint',
    'NonFiniteLossError', 'NonFiniteLossHook', 'RunShareWarmupLR',
    'WarmupPeakHook',
]
