# LEVIR-CC (Liu et al. 2022), read as distributed by LEVIRCCDataset:
# LevirCCcaptions.json + images/{train,val,test}/{A,B}/ (256x256, A before,
# B after; docs/datasets.md). Every caption of a pair is a reference; half
# the pairs are no-change pairs (change_type 'none', read from the
# captions, or from 'changeflag' with
# ann_file='LevirCCcaptions_v1.json').
_base_ = ['./image_pair.py']
data_root = 'data/levir_cc'
vocab_file = data_root + '/caption_vocab_train.json'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root=data_root, split='train',
    pipeline={{_base_.train_pipeline}}))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root=data_root, split='val',
    pipeline={{_base_.test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root=data_root, split='test',
    pipeline={{_base_.test_pipeline}}))
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy.
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words')
test_evaluator = val_evaluator
