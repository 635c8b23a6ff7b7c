# Quickstart stage 1 (CPU, minutes): contrastive adaptation of the tiny pair
# encoder on the synthetic CLEVR-Change-style set, change pairs only.
# The from-scratch recipe: CLIP4IDC's tiny architecture with the components
# of _base_/scratch_parts.py, trained from random weights.
_base_ = [
    '../../../configs/_base_/datasets/synthetic_clevr_change_96x144.py',
    '../../../configs/_base_/models/clip4idc-retriever_tiny.py',
    '../../../configs/_base_/schedules/tiny_from_scratch.py',
    './_base_/default_runtime.py', './_base_/scratch_parts.py'
]
model = dict(backbone={{_base_.scratch_backbone}},
             neck={{_base_.scratch_pair_pooling}})
# What the quickstart generates when data_root is empty.
synthetic_data = dict(num_scenes=3000, image_size=(240, 160), seed=0)
train_dataloader = dict(dataset=dict(with_no_change=False))
val_dataloader = dict(dataset=dict(
    with_no_change=False, pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

# Two epochs: the recipe's adaptation budget, sized for the quickstart's
# minutes. Raise them for a real adaptation run.
max_epochs = 2
# 3e-4: the recipe's adaptation rate. From random weights, contrastive
# training at 2e-3 collapses both towers to one vector within ~30 steps
# (loss pinned at 2 ln 32, gradient norm -> 0).
optim_wrapper = dict(optimizer=dict(lr=3e-4))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.02, by_epoch=False, begin=0,
         end=50),
    # No `end`: MMEngine ends it at train_cfg.max_epochs, so a child config
    # that changes max_epochs keeps the whole decay.
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0,
         eta_min_ratio=0.05, convert_to_iter_based=True),
]
train_cfg = dict(max_epochs=max_epochs)  # validated every epoch
default_hooks = dict(checkpoint=dict(save_best='rsum', rule='greater'),
                     logger=dict(interval=10))
