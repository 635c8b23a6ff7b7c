# IDC-PCL pre-training on CLEVR-Change as published: frozen ImageNet
# ResNet-101 grid features (7x7x2048), MLM : MVCL : FDA = 8 : 1 : 2 on the
# change and no-change pairs of the training split, batch 200, 250,000
# steps. FDA's hard negatives: write them once with
#   python tools/dataset_converters/make_hard_negatives.py \
#       --dataset-type CLEVRChangeDataset --data-root data/clevr_change
# and the caption vocabulary (the fine-tuning config reads the same file)
#   python tools/dataset_converters/build_vocab.py \
#       --dataset-type CLEVRChangeDataset --data-root data/clevr_change
# Cross-task pairs (e.g. captioning data in the ImagePairDataset format)
# join by making train_dataloader.dataset a ConcatDataset of both.
_base_ = [
    '../_base_/datasets/clevr_change.py',
    '../_base_/models/idc_pcl-pretrainer_resnet101.py',
    '../_base_/schedules/idc_pcl_pretrain.py'
]
data_root = 'data/clevr_change'
negatives_file = '{data_root}/hard_negatives_train.json'
pretrain_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
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
model = dict(cross_modal=dict(vocab='{vocab_file}'))
