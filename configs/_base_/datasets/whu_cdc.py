# WHU-CDC (Shi et al. 2024): whuCCcaptions.json (a record's split is its
# 'filepath') + images/{split}/{A,B}/ (and label/ masks where present), read
# by WHUCDCDataset (docs/datasets.md).
_base_ = ['./image_pair.py']
data_root = 'data/whu_cdc'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'WHUCDCDataset', data_root, _base_.train_pipeline, _base_.test_pipeline)
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy
# (a no-change prediction is one of this data set's no-change sentences,
# mmidc.text.no_change).
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words',
                     no_change_sentences='whu_cdc')
test_evaluator = val_evaluator
