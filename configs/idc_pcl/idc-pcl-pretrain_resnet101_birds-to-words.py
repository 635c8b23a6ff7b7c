# IDC-PCL pre-training on Birds-to-Words: frozen ImageNet ResNet-101 grid
# features, MLM : MVCL : FDA = 9 : 1 : 2 on the training pairs, F_cross of
# 2 layers and 80 caption tokens (the published bird settings). FDA's hard
# negatives (confuse swaps animal1 and animal2): write them once with
#   python tools/dataset_converters/make_hard_negatives.py \
#       configs/idc_pcl/idc-pcl-pretrain_resnet101_birds-to-words.py
# and the caption vocabulary (read by the fine-tuning config too) with
#   python tools/dataset_converters/build_vocab.py \
#       configs/idc_pcl/idc-pcl-pretrain_resnet101_birds-to-words.py
# The published model also pre-trained on cross-task data (CUB captions,
# NABirds classes): idc-pcl-pretrain-nabirds_resnet101_birds-to-words.py adds
# NABirds; captioned pairs in the ImagePairDataset format join through a
# ConcatDataset in train_dataloader.
_base_ = [
    '../_base_/datasets/birds_to_words.py',
    '../_base_/models/idc_pcl-pretrainer_resnet101.py',
    '../_base_/schedules/idc_pcl_pretrain.py'
]
data_root = 'data/birds_to_words'
negatives_file = '{data_root}/hard_negatives_train.json'
pretrain_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='TokenizeCaptions', context_length=80, mode='random'),
    dict(type='SampleHardNegatives', negatives_file=negatives_file,
         num_negatives=6),
    dict(type='PackIDCInputs',
         meta_keys=('pair_id', 'change_type', 'gt_captions',
                    'negative_captions')),
]
train_dataloader = dict(batch_size=150,
                        dataset=dict(data_root='{data_root}',
                                     pipeline=pretrain_pipeline))
val_dataloader = None
val_evaluator = None
test_dataloader = None
test_evaluator = None
model = dict(task_weights=dict(mlm=9, mvcl=1, fda=2),
             cross_modal=dict(num_layers=2, max_length=80,
                              vocab='{vocab_file}'))
# the published bird stage: 60,000 steps of 150, 4,000 warm-up steps
max_iters = 60000
param_scheduler = [dict(type='NoamLR', warmup=4000, by_epoch=False)]
train_cfg = dict(max_iters=max_iters)
