# Quickstart stage 2 (CPU, minutes): the tiny captioner on the synthetic
# CLEVR-Change-style set (change and no-change pairs), its pair encoder
# initialised from stage 1 (tools/quickstart.py passes
# model.init_backbone_from=<stage-1 best checkpoint>).
_base_ = [
    '../_base_/datasets/synthetic_clevr_change.py',
    '../_base_/models/clip4idc-captioner_tiny.py',
    '../_base_/schedules/tiny_from_scratch.py', '../_base_/default_runtime.py'
]
image_size = (96, 144)
data_root = 'data/synthetic_clevr_change'
load_pair = dict(type='LoadImagePair', cache_dir=data_root + '/cache_96x144',
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
    batch_size=32, num_workers=1,
    dataset=dict(data_root=data_root, pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(data_root=data_root, pipeline=test_pipeline))
test_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(data_root=data_root, pipeline=test_pipeline))

# Restricted output vocabulary from the training captions (annotations only).
model = dict(head=dict(vocab=dict(
    _delete_=True,
    captions_from=dict(type='CLEVRChangeDataset', data_root=data_root,
                       split='train'))))
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'),
                     logger=dict(interval=10))
