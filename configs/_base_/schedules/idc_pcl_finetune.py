# Inherits the runtime so that it can set the model-selection rule below.
_base_ = ['../default_runtime.py']

# IDC-PCL fine-tuning as published for CLEVR-Change: Adam at 3e-5 without
# weight decay, halved after 10,000 and again after 20,000 steps, 100,000
# steps (batch 200 in the configs); validation every 2,000 steps, keeping
# the best CIDEr-D on val (the configs of other data sets change the
# metric).
max_iters = 100000
optim_wrapper = dict(type='OptimWrapper',
                     optimizer=dict(type='Adam', lr=3e-5, weight_decay=0.0))
# the published loop counts steps from 1: its step 10,000 is iteration 9,999
param_scheduler = [
    dict(type='MultiStepLR', milestones=[9999, 19999], gamma=0.5,
         by_epoch=False),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters,
                 val_interval=2000)
val_cfg = dict()
test_cfg = dict()
default_hooks = dict(checkpoint=dict(by_epoch=False, interval=2000,
                                     save_best='CIDEr', rule='greater'))
log_processor = dict(by_epoch=False)
