# Runtime shared by every mmidc config.
# mmidc's registries are the default scope, and reading a config imports
# mmidc, so that MMEngine's Runner.from_cfg and MMPretrain's stock tools
# (`mim train mmpretrain ...`) find its components.
default_scope = 'mmidc'
# Fills the configs' '{data_root}' placeholders and 'auto' loader settings
# when MMPretrain's tools (`mim train`) build the runner (tools/train.py
# does it itself, then checks the folders).
runner_type = 'mmidc.runtime.idc_runner.IDCRunner'
custom_imports = dict(imports=['mmidc'], allow_failed_imports=False)

default_hooks = dict(
    # Losses read back from the GPU only when logged, not after every step
    # (same logs; mmidc.engine.DeferredRuntimeInfoHook).
    runtime_info=dict(type='DeferredRuntimeInfoHook'),
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50),
    param_scheduler=dict(type='ParamSchedulerHook'),
    # Atomic writes: a crash during a save never leaves a corrupt "latest";
    # the new best is written before the old one is removed, and a resumed
    # run re-validates when needed (mmidc.engine.SafeCheckpointHook).
    checkpoint=dict(
        type='SafeCheckpointHook',
        interval=1,
        max_keep_ckpts=2,
        backend_args=dict(backend='atomic_local')),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    # Stop at a NaN/inf loss; never save a non-finite model.
    nonfinite_loss=dict(type='NonFiniteLossHook'),
    # Persistent loader workers stopped when the run ends, not at interpreter
    # exit (where PyTorch waits 5 s per worker with pinned memory).
    loader_shutdown=dict(type='LoaderShutdownHook'),
    # A warning when the run ends before its learning-rate warm-up peaks
    # (a small data set, docs/new_dataset.md).
    warmup_peak=dict(type='WarmupPeakHook'),
    # A warning when a loader's data set reads none of the config's folders
    # (data_root, *_root): a child built with Runner.from_cfg keeps the
    # folder its base bound (docs/new_dataset.md).
    data_root_check=dict(type='DataRootCheckHook'),
)
# The same random numbers (data and model) in resumed and uninterrupted runs.
custom_hooks = [dict(type='EpochReseedHook')]

env_cfg = dict(
    cudnn_benchmark=False,
    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
    dist_cfg=dict(backend='nccl'),
)

vis_backends = [dict(type='LocalVisBackend')]
visualizer = dict(type='Visualizer', vis_backends=vis_backends)

log_level = 'INFO'
load_from = None
resume = False
randomness = dict(seed=42, deterministic=False)
