# SECOND-CC (Karaca et al. 2025): SECOND-CC-AUG.json + {split}/rgb/{A,B}/
# and the semantic maps {split}/sem/{A,B}/ (passed along as sem1_path /
# sem2_path), read by SECONDCCDataset (docs/datasets.md). No-change pairs:
# SECOND-CC's own sentences (the reader's default,
# no_change_sentences='second_cc').
_base_ = ['./image_pair.py']
data_root = 'data/second_cc'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='SECONDCCDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='SECONDCCDataset', data_root='{data_root}',
    split='val', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='SECONDCCDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy
# (a no-change prediction is one of this data set's no-change sentences,
# mmidc.text.no_change).
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words',
                     no_change_sentences='second_cc')
test_evaluator = val_evaluator
