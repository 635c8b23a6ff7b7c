# WHU-CDC (Shi et al. 2024): whuCCcaptions.json (a record's split is its
# 'filepath') + images/{split}/{A,B}/ (and label/ masks where present), read
# by WHUCDCDataset (docs/datasets.md).
_base_ = ['./image_pair.py']
data_root = 'data/whu_cdc'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='WHUCDCDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='WHUCDCDataset', data_root='{data_root}',
    split='val', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='WHUCDCDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy
# (a no-change prediction is one of this data set's no-change sentences,
# mmidc.text.no_change).
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words',
                     no_change_sentences='whu_cdc')
test_evaluator = val_evaluator
