# Dubai-CC (Hoxha et al. 2022): description_jsontr_te_val/{Train,Validation,
# Test}_*.json + RGB/500_2000/ (before) and RGB/500_2010/ (after), 50x50
# crops resized to the model's input, read by DubaiCCDataset
# (docs/datasets.md). No-change pairs: Dubai-CC's own 32 sentences (the
# reader's default, no_change_sentences='dubai_cc'); a pair whose captions
# mix them with change captions is a change pair (mixed_pairs='change').
_base_ = ['./image_pair.py']
data_root = 'data/dubai_cc'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='DubaiCCDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='DubaiCCDataset', data_root='{data_root}',
    split='val', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='DubaiCCDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy
# (a no-change prediction is one of this data set's no-change sentences,
# mmidc.text.no_change).
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words',
                     no_change_sentences='dubai_cc')
test_evaluator = val_evaluator
