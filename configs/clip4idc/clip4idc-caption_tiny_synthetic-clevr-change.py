# Quickstart stage 2 (CPU, minutes): the tiny captioner on the synthetic
# CLEVR-Change-style set (change and no-change pairs), its pair encoder
# initialised from stage 1 (tools/quickstart.py passes
# model.init_backbone_from=<stage-1 best checkpoint>).
_base_ = [
    '../_base_/datasets/synthetic_clevr_change.py',
    '../_base_/models/clip4idc-captioner_tiny.py',
    '../_base_/schedules/captioning.py'
]
image_size = (128, 192)
data_root = 'data/synthetic_clevr_change'
load_pair = dict(type='LoadImagePair', cache_dir=data_root + '/cache_128x192',
                 cache_size=image_size)
train_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='PackIDCInputs'),
]
test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(
    batch_size=64, num_workers=2,
    dataset=dict(data_root=data_root, pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=128, num_workers=2,
    dataset=dict(data_root=data_root, pipeline=test_pipeline))
test_dataloader = dict(
    batch_size=128, num_workers=2,
    dataset=dict(data_root=data_root, pipeline=test_pipeline))

# Restricted output vocabulary from the training captions (annotations only).
model = dict(head=dict(vocab=dict(
    _delete_=True,
    captions_from=dict(type='CLEVRChangeDataset', data_root=data_root,
                       split='train'))))

# From scratch: one learning rate for encoder and captioner.
optim_wrapper = dict(
    _delete_=True,
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, weight_decay=0.05),
    clip_grad=dict(max_norm=1.0))
max_epochs = 8
param_scheduler = [
    dict(type='LinearLR', start_factor=0.05, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=max_epochs,
         eta_min_ratio=0.05, convert_to_iter_based=True),
]
train_cfg = dict(max_epochs=max_epochs, val_interval=max_epochs)
default_hooks = dict(logger=dict(interval=10))
