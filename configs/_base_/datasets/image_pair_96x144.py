# Your own image pairs (image_pair.py) at the tiny CPU model's input size
# (96x144, H x W), for the from-scratch recipe's my-pairs configs.
_base_ = ['./image_pair.py']
image_size = (96, 144)
data_root = 'data/my_pairs'
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
train_dataloader = dict(batch_size=32,
                        dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(batch_size=128,
                      dataset=dict(pipeline=test_pipeline))
test_dataloader = dict(batch_size=128,
                       dataset=dict(pipeline=test_pipeline))
