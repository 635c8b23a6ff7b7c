# LEVIR-MCI (Liu et al. 2024): LEVIR-CC's pairs and captions
# (LevirCCcaptions.json, images/{split}/{A,B}/) with change masks in
# images/{split}/label/, read by LEVIRMCIDataset (each pair carries its
# mask_path; docs/datasets.md).
_base_ = ['./image_pair.py']
data_root = 'data/levir_mci'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'LEVIRMCIDataset', data_root, _base_.train_pipeline, _base_.test_pipeline)
# Scored as remote-sensing change-captioning papers score (docs/evaluation.md):
# lowercase, "." removed, split on whitespace (CCExpert's protocol), with
# S*m, the change / no-change subsets and the no-change decision accuracy.
val_evaluator = dict(type='IDCMetric', tokenizer='rs_words')
test_evaluator = val_evaluator
