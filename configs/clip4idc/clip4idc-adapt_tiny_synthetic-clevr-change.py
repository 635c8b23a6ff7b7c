# Quickstart stage 1 (CPU, minutes): contrastive adaptation of the tiny pair
# encoder on the synthetic CLEVR-Change-style set, change pairs only.
_base_ = [
    '../_base_/datasets/synthetic_clevr_change.py',
    '../_base_/models/clip4idc-retriever_tiny.py',
    '../_base_/schedules/adaptation.py'
]
# What tools/quickstart.py generates when data_root is empty.
synthetic_data = dict(num_scenes=4000, image_size=(240, 160), seed=0)
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
retrieval_test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='all'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(
    batch_size=64, num_workers=2,
    dataset=dict(data_root=data_root, with_no_change=False,
                 pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=128, num_workers=2,
    dataset=dict(data_root=data_root, with_no_change=False,
                 pipeline=retrieval_test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

# From scratch: a normal learning rate for every parameter.
optim_wrapper = dict(
    _delete_=True,
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, weight_decay=0.05),
    clip_grad=dict(max_norm=1.0))
max_epochs = 4
param_scheduler = [
    dict(type='LinearLR', start_factor=0.05, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end=max_epochs,
         eta_min_ratio=0.05, convert_to_iter_based=True),
]
train_cfg = dict(max_epochs=max_epochs, val_interval=max_epochs)
default_hooks = dict(logger=dict(interval=10))
