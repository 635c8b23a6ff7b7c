# idc-pcl-pretrain_resnet101_clevr-change.py on cached ResNet-101 features
# (configs/_base_/datasets/clevr_change_resnet101_features.py says how to
# write them): the same model and schedule without the image decoding and
# the backbone pass of every step.
_base_ = [
    '../_base_/datasets/clevr_change_resnet101_features.py',
    '../_base_/models/idc_pcl-pretrainer_resnet101.py',
    '../_base_/schedules/idc_pcl_pretrain.py'
]
data_root = 'data/clevr_change'
negatives_file = '{data_root}/hard_negatives_train.json'
pretrain_pipeline = [
    _base_.load_features,
    dict(type='TokenizeCaptions', context_length=40, mode='random'),
    dict(type='SampleHardNegatives', negatives_file=negatives_file,
         num_negatives=6),
    dict(type='PackIDCInputs',
         meta_keys=('pair_id', 'change_type', 'gt_captions',
                    'negative_captions')),
]
train_dataloader = dict(batch_size=200,
                        dataset=dict(pipeline=pretrain_pipeline))
val_dataloader = None
val_evaluator = None
test_dataloader = None
test_evaluator = None
model = dict(
    **_base_.cached_features,
    cross_modal=dict(vocab='{vocab_file}'))
