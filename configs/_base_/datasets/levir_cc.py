# LEVIR-CC (Liu et al. 2022), read as distributed by LEVIRCCDataset:
# LevirCCcaptions.json + images/{train,val,test}/{A,B}/ (256x256, A before,
# B after; docs/datasets.md). Every caption of a pair is a reference; half
# the pairs are no-change pairs (change_type 'none', read from the
# captions, or from 'changeflag' with
# ann_file='LevirCCcaptions_v1.json').
_base_ = ['./image_pair.py']
data_root = 'data/levir_cc'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'LEVIRCCDataset', data_root, _base_.train_pipeline, _base_.test_pipeline)
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy.
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words')
test_evaluator = val_evaluator
