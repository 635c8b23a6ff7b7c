# Inherits the runtime so that it can set the model-selection rule below.
_base_ = ['../default_runtime.py']

# Stage 1: pair<->text contrastive adaptation (paper: Adam, lr 1e-7 for the
# CLIP weights, 12 epochs on CLEVR-Change, batch 128 on two GPUs).
# The parameters CLIP lacks (image-id and joint positional embeddings, the
# joint LayerNorm) start from scratch and get lr 1e-4 (lr_mult 1e3): at 1e-7
# they would barely move from their initialisation.
optim_wrapper = dict(
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

train_cfg = dict(by_epoch=True, max_epochs=12, val_interval=1)
val_cfg = dict()
test_cfg = dict()

# Model selection on the val split: the sum of the six retrieval recalls.
default_hooks = dict(checkpoint=dict(save_best='rsum', rule='greater'))

# The paper's batch; MMEngine rescales lr when enabled (--auto-scale-lr).
auto_scale_lr = dict(base_batch_size=128, enable=False)
