# Train and validate on the synthetic set, test on the shifted one: another
# seed, 6-10 objects, wider camera and light ranges, 360x240 renders
# (tools/generate_synthetic_clevr_change.py --preset shifted; val and test
# splits only, docs/synthetic_data.md), at the tiny model's input size from
# its pre-resized cache. The quickstart scores its trained captioner
# with this set's test loader and evaluators.
_base_ = ['./synthetic_clevr_change_96x144.py']
# A second folder: a top-level *_root (a child that sets shifted_root moves
# the test loader, its cache and its truth root).
shifted_root = 'data/synthetic_clevr_change_shifted'
test_dataloader = dict(dataset=dict(
    data_root='{shifted_root}',
    pipeline=[
        dict(type='LoadImagePair', cache_dir='{shifted_root}/cache_96x144',
             cache_size=(96, 144)),
        dict(type='ResizePair', size=(96, 144)),
        dict(type='PackIDCInputs'),
    ]))
test_evaluator = [
    dict(type='IDCMetric'),
    dict(type='CaptionTruthMetric', data_root='{shifted_root}'),
]
