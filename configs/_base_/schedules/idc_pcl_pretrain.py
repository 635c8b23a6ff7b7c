# Inherits the runtime so that it can set the checkpoint hook below.
_base_ = ['../default_runtime.py']

# IDC-PCL pre-training as published: Adam at 1e-4 without weight decay,
# 8,000 warm-up steps, 250,000 steps (batch 200 in the configs); here a
# linear decay to 0 after the warm-up. No validation: the fine-tuning
# config chooses its checkpoint on val.
max_iters = 250000
optim_wrapper = dict(type='OptimWrapper',
                     optimizer=dict(type='Adam', lr=1e-4, weight_decay=0.0))
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0,
         end=8000),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=8000,
         end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters)
val_cfg = None
test_cfg = None
default_hooks = dict(checkpoint=dict(by_epoch=False, interval=10000))
log_processor = dict(by_epoch=False)
