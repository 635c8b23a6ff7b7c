# Birds-to-Words (Forbes et al. 2019): birds-to-words-v1.0.tsv and the photos
# under images/ as tools/dataset_converters/download_birds_to_words.py writes
# them (BirdsToWordsDataset's image_name option for other download layouts).
# Photos deleted from iNaturalist cannot be downloaded: their pairs are left
# out and counted in the log (skip_missing_images; the download tool lists
# them in missing_pairs.tsv). Descriptions are paragraphs: 80 caption tokens.
_base_ = ['./image_pair.py']
data_root = 'data/birds_to_words'
vocab_file = data_root + '/caption_vocab_train.json'
context_length = 80
train_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='TokenizeCaptions', context_length=context_length,
         mode='random'),
    dict(type='PackIDCInputs'),
]
_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'BirdsToWordsDataset', data_root, train_pipeline, _base_.test_pipeline,
    skip_missing_images=True)
