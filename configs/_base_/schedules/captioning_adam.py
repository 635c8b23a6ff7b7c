# Stage 2 with mmidc's former recipe instead of the published code's: Adam,
# no weight decay or gradient clipping, a 1-epoch linear warmup, then cosine
# to 1% (lr 1e-4 for the captioner, 1e-7 for the encoder). Swap it for
# '../_base_/schedules/captioning.py' in a config's _base_ list.
_base_ = ['./captioning.py']
optim_wrapper = dict(
    _delete_=True,
    type='OptimWrapper',
    optimizer=dict(type='Adam', lr=1e-4, weight_decay=0.0),
    paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)}))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=50,
         eta_min_ratio=0.01, convert_to_iter_based=True),
]
