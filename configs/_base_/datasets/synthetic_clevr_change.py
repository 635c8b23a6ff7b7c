# The synthetic CLEVR-Change-style set (tools/generate_synthetic_clevr_change.py
# writes it, with its caption vocabulary):
# same layout and reader as CLEVR-Change, another root.
_base_ = ['./clevr_change.py']
data_root = 'data/synthetic_clevr_change'

# coco-caption scores, and caption truth: the share of captions that are true
# of the scene graphs (truth/total, truth/<type>, ...; docs/evaluation.md).
val_evaluator = [
    dict(type='IDCMetric'),
    dict(type='CaptionTruthMetric', data_root='{data_root}'),
]
test_evaluator = val_evaluator
