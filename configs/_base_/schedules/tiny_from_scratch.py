# The CPU quickstart's schedule: the tiny model starts from random weights
# (no CLIP checkpoint), so every parameter gets a normal learning rate, with
# a short warm-up and a cosine decay over `train_cfg.max_epochs` (the
# run's, also when a child config changes it).
max_epochs = 5
optim_wrapper = dict(
    type='OptimWrapper',
    # fused: one kernel for all parameters (about 20% faster CPU steps, see
    # docs/benchmark.md); needs torch >= 2.4 on CPU.
    # 5e-4: the tiny configs' default rate; the from-scratch CLIP4IDC
    # recipe sets its own per stage (docs/from_scratch.md).
    optimizer=dict(type='AdamW', lr=5e-4, weight_decay=0.05, fused=True),
    clip_grad=dict(max_norm=1.0))
param_scheduler = [
    # Warm-up: 50 iterations, at most 5 % of the run, none under 2
    # iterations (RunShareWarmupLR), so a small data set still trains at
    # the configured rate; no `end`: the run's (docs/new_dataset.md, "Epochs
    # for a small data set").
    dict(type='RunShareWarmupLR', start_factor=0.02, share=0.05,
         max_steps=50, by_epoch=True, begin=0, convert_to_iter_based=True),
    # No `end`: MMEngine ends it at train_cfg.max_epochs, so a child config
    # that changes max_epochs keeps the whole decay.
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0,
         eta_min_ratio=0.05, convert_to_iter_based=True),
]
# Validate after every epoch: a metric curve to watch (docs/watching_a_run.md)
# and the checkpoint best on val kept. A validation pass of the tiny
# captioner takes about a minute on 2 CPU cores (docs/evaluation.md); the
# training does not change (EpochReseedHook reseeds each epoch).
train_cfg = dict(by_epoch=True, max_epochs=max_epochs, val_interval=1)
val_cfg = dict()
test_cfg = dict()
