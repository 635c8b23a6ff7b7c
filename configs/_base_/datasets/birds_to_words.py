# Birds-to-Words (Forbes et al. 2019): birds-to-words-v1.0.tsv and the photos
# under images/<the URL's last path component> (BirdsToWordsDataset's
# image_name option for other download layouts). Descriptions are
# paragraphs: 80 caption tokens.
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
    _delete_=True, type='BirdsToWordsDataset', data_root=data_root,
    split='train', pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='BirdsToWordsDataset', data_root=data_root,
    split='val', pipeline={{_base_.test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='BirdsToWordsDataset', data_root=data_root,
    split='test', pipeline={{_base_.test_pipeline}}))
