# The synthetic set at the tiny CPU model's input size (96x144), read from
# the pre-resized cache that the quickstart builds.
_base_ = ['./synthetic_clevr_change.py']
image_size = (96, 144)
data_root = 'data/synthetic_clevr_change'
# '{data_root}': the loader's own (see image_pair.py), not this file's.
load_pair = dict(type='LoadImagePair', cache_dir='{data_root}/cache_96x144',
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
retrieval_test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='all'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(batch_size=32, num_workers=1,
                        dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(batch_size=128, num_workers=1,
                      dataset=dict(pipeline=test_pipeline))
test_dataloader = dict(batch_size=128, num_workers=1,
                       dataset=dict(pipeline=test_pipeline))
