# The synthetic CLEVR-Change-style set (tools/generate_synthetic_clevr_change.py
# writes it, with its caption vocabulary):
# same layout and reader as CLEVR-Change, another root.
_base_ = ['./clevr_change.py']
data_root = 'data/synthetic_clevr_change'
vocab_file = data_root + '/caption_vocab_train.json'

_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'CLEVRChangeDataset', data_root, _base_.train_pipeline,
    _base_.test_pipeline)
# coco-caption scores, and caption truth: the share of captions that are true
# of the scene graphs (truth/total, truth/<type>, ...; docs/evaluation.md).
val_evaluator = [
    dict(type='IDCMetric'),
    dict(type='CaptionTruthMetric', data_root=data_root),
]
test_evaluator = val_evaluator
