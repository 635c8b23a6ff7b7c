# Inherits the runtime so that it can set the model-selection rule below.
_base_ = ['../default_runtime.py']

# Stage 2: captioning, the published CLIP4IDC code's recipe
# (configs/clip4idc/README.md lists where mmidc differs):
# - BertAdam (no bias correction, beta2 0.999, eps 1e-6, each parameter's
#   gradient clipped to norm 1.0) after a global clip of all gradients to 1.0;
# - weight decay 0.01, not on parameters whose name contains "bias" nor on
#   the caption head's normalisation layers (the reference's BERT-style
#   decoder names them LayerNorm and excludes them);
# - lr 1e-4 for the captioner, 1e-7 for every encoder parameter (the
#   inter-image ones included);
# - warmup-linear: 10% linear warmup, then linear decay to 0 at the end.
# The former mmidc recipe (Adam, no clipping or decay, 1-epoch warmup, then
# cosine): use '../_base_/schedules/captioning_adam.py' instead.
optim_wrapper = dict(
    type='OptimWrapper',
    constructor='NoDecayOptimWrapperConstructor',
    optimizer=dict(type='BertAdam', lr=1e-4, betas=(0.9, 0.999), eps=1e-6,
                   weight_decay=0.01, max_grad_norm=1.0),
    clip_grad=dict(max_norm=1.0),
    paramwise_cfg=dict(
        custom_keys={'backbone': dict(lr_mult=1e-3)},
        no_decay_keys=['bias'],
        no_decay_norms_in=['head']))

# `end` defaults to train_cfg.max_epochs (the reference's t_total).
param_scheduler = [
    dict(type='BertWarmupLR', schedule='warmup_linear', warmup=0.1,
         by_epoch=True, begin=0, convert_to_iter_based=True),
]

train_cfg = dict(by_epoch=True, max_epochs=50, val_interval=1)
val_cfg = dict()
test_cfg = dict()

# Model selection on the val split by CIDEr (CIDEr-D); test only via
# tools/test.py.
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'))

# The paper's batch of 16 pairs (a config that counts 2 pairs a scene sets
# 32); MMEngine rescales lr by the global batch over it when enabled
# (--cfg-options auto_scale_lr.enable=True; docs/distributed.md).
auto_scale_lr = dict(base_batch_size=16, enable=False)
