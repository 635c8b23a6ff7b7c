# Inherits the runtime so that it can set the model-selection rule below.
_base_ = ['../default_runtime.py']

# Stage 1: pair<->text contrastive adaptation, the published CLIP4IDC code's
# recipe (configs/clip4idc/README.md lists where mmidc differs):
# - BertAdam (no bias correction, beta2 0.98, eps 1e-6, each parameter's
#   gradient clipped to norm 1.0) after a global clip of all gradients to 1.0;
# - weight decay 0.2 on every parameter whose name does not contain "bias"
#   (CLIP's LayerNorm weights and the new parameters included, as in the
#   reference, whose exclusion list names BERT's "LayerNorm.*" only);
# - lr 1e-7 for the CLIP weights (the reference's 1e-4 x coef_lr 1e-3) and
#   1e-4 for the parameters CLIP lacks (image-id and joint positional
#   embeddings, the joint LayerNorm);
# - warmup-cosine over the whole run, 10% warmup, per iteration;
# - logit scale clamped to ln 100 after each step (LogitScaleClampHook; the
#   head's forward pass then uses it unclamped).
# The former mmidc recipe (Adam, no clipping or decay, 1-epoch warmup, then
# cosine): use '../_base_/schedules/adaptation_adam.py' instead.
optim_wrapper = dict(
    type='OptimWrapper',
    constructor='NoDecayOptimWrapperConstructor',
    optimizer=dict(type='BertAdam', lr=1e-7, betas=(0.9, 0.98), eps=1e-6,
                   weight_decay=0.2, max_grad_norm=1.0),
    clip_grad=dict(max_norm=1.0),
    paramwise_cfg=dict(
        custom_keys={
            'image_id_embedding': dict(lr_mult=1e3),
            'joint_positional_embedding': dict(lr_mult=1e3),
            'ln_joint': dict(lr_mult=1e3),
        },
        no_decay_keys=['bias']))

# `end` defaults to train_cfg.max_epochs (the reference's t_total).
param_scheduler = [
    dict(type='BertWarmupLR', schedule='warmup_cosine', warmup=0.1,
         by_epoch=True, begin=0, convert_to_iter_based=True),
]

train_cfg = dict(by_epoch=True, max_epochs=12, val_interval=1)
val_cfg = dict()
test_cfg = dict()

# Model selection on the val split: the sum of the six retrieval recalls.
default_hooks = dict(checkpoint=dict(save_best='rsum', rule='greater'))
custom_hooks = [dict(type='EpochReseedHook'),
                dict(type='LogitScaleClampHook')]

# The paper's batch; MMEngine rescales lr by the global batch over it when
# enabled (--cfg-options auto_scale_lr.enable=True; docs/distributed.md).
auto_scale_lr = dict(base_batch_size=128, enable=False)
