# Spot-the-Diff (Jhamtani & Berg-Kirkpatrick 2018): annotations/{split}.json + resized_images/.
# One pair per img_id, its references the sentences of all its records (one record
# per annotator), "" kept on val/test as the official references keep it. Every
# sentence is a separate reference; train draws one per visit (single-sentence
# protocol); docs/datasets.md.
_base_ = ['./image_pair.py']
data_root = 'data/spot_the_diff'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'SpotTheDiffDataset', data_root, _base_.train_pipeline, _base_.test_pipeline)
