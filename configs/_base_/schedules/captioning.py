# Inherits the runtime so that it can set the model-selection rule below.
_base_ = ['../default_runtime.py']

# Stage 2: captioning (paper: Adam, lr 1e-4 for the captioner trained from
# scratch, 1e-7 for the adapted vision encoder, at most 50 epochs, batch 16).
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='Adam', lr=1e-4, weight_decay=0.0),
    paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)}))

param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=50,
         eta_min_ratio=0.01, convert_to_iter_based=True),
]

train_cfg = dict(by_epoch=True, max_epochs=50, val_interval=1)
val_cfg = dict()
test_cfg = dict()

# Model selection on the val split by CIDEr (CIDEr-D); test only via
# tools/test.py.
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'))

auto_scale_lr = dict(base_batch_size=16, enable=False)
