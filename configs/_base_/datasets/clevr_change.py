# CLEVR-Change (Park et al. 2019) in its distributed layout under data_root.
_base_ = ['./image_pair.py']
data_root = 'data/clevr_change'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'CLEVRChangeDataset', data_root, _base_.train_pipeline, _base_.test_pipeline)
