# Stage 1 with mmidc's former recipe instead of the published code's: Adam,
# no weight decay or gradient clipping, a 1-epoch linear warmup, then cosine
# to 1% (lr 1e-7 for the CLIP weights, 1e-4 for the new parameters). Swap it
# for '../_base_/schedules/adaptation.py' in a config's _base_ list; the
# LogitScaleClampHook is kept here (without it the head clamps the logit
# scale in the forward pass).
_base_ = ['./adaptation.py']
optim_wrapper = dict(
    _delete_=True,
    type='OptimWrapper',
    optimizer=dict(type='Adam', lr=1e-7, weight_decay=0.0),
    paramwise_cfg=dict(
        custom_keys={
            'image_id_embedding': dict(lr_mult=1e3, decay_mult=0.0),
            'joint_positional_embedding': dict(lr_mult=1e3, decay_mult=0.0),
            'ln_joint': dict(lr_mult=1e3, decay_mult=0.0),
        }))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=12,
         eta_min_ratio=0.01, convert_to_iter_based=True),
]
