# Inherits the runtime so that it can set the checkpoint hook below.
_base_ = ['../default_runtime.py']

# IDC-PCL pre-training as published: Adam at 1e-4 without weight decay,
# 8,000 warm-up steps, then inverse square-root decay (NoamLR), 250,000
# steps (batch 200 in the configs). No validation: the fine-tuning config
# chooses its checkpoint on val.
max_iters = 250000
optim_wrapper = dict(type='OptimWrapper',
                     optimizer=dict(type='Adam', lr=1e-4, weight_decay=0.0))
param_scheduler = [dict(type='NoamLR', warmup=8000, by_epoch=False)]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters)
val_cfg = None
test_cfg = None
default_hooks = dict(checkpoint=dict(by_epoch=False, interval=10000))
log_processor = dict(by_epoch=False)
