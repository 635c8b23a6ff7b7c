# Birds-to-Words (Forbes et al. 2019): birds-to-words-v1.0.tsv and the photos
# under images/ as tools/dataset_converters/download_birds_to_words.py writes
# them (BirdsToWordsDataset's image_name option for other download layouts).
# Photos deleted from iNaturalist cannot be downloaded: their pairs are left
# out and counted in the log (skip_missing_images; the download tool lists
# them in missing_pairs.tsv). Descriptions are paragraphs: 80 caption tokens.
_base_ = ['./image_pair.py']
data_root = 'data/birds_to_words'
context_length = 80
train_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='TokenizeCaptions', context_length=context_length,
         mode='random'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(dataset=dict(
    _delete_=True, type='BirdsToWordsDataset', data_root='{data_root}',
    split='train', skip_missing_images=True, pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='BirdsToWordsDataset', data_root='{data_root}',
    split='val', skip_missing_images=True, pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='BirdsToWordsDataset', data_root='{data_root}',
    split='test', skip_missing_images=True, pipeline=_base_.test_pipeline))
