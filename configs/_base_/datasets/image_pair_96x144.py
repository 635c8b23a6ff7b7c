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
_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'ImagePairDataset', data_root, train_pipeline, test_pipeline,
    splits=(dict(ann_file='train.jsonl'), dict(ann_file='val.jsonl'),
            dict(ann_file='test.jsonl')),
    train_batch_size=32, test_batch_size=128)
