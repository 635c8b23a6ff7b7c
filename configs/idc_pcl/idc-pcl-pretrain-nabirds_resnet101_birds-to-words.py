# IDC-PCL pre-training on Birds-to-Words with NABirds as cross-task data, as
# the published code's second bird stage: batches of Birds-to-Words pairs
# (MLM : MVCL : FDA = 9 : 1 : 2) and batches of NABirds photo pairs (species
# classification, same-species matching and class contrast on the image
# difference encoder) in the ratio 12 : 3, i.e. 9 : 1 : 2 : 3 per step;
# 60,000 steps of 150, 4,000 warm-up steps (the base's schedule). NABirds in its distributed
# layout (images.txt, image_class_labels.txt, classes.txt,
# train_test_split.txt, images/) under nabirds_root; the published code read
# 555 classes. FDA's hard negatives: as for
# idc-pcl-pretrain_resnet101_birds-to-words.py. The published first stage
# (CUB captions) is not part of this config.
_base_ = ['./idc-pcl-pretrain_resnet101_birds-to-words.py']
data_root = 'data/birds_to_words'
nabirds_root = 'data/nabirds'
negatives_file = '{data_root}/hard_negatives_train.json'
batch_size = 150
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
nabirds_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='PackIDCInputs',
         meta_keys=('pair_id', 'class_labels', 'same_class')),
]
train_dataloader = dict(
    batch_size=batch_size,
    # every batch from one data set: pairs 12 : NABirds 3
    sampler=dict(type='SampleSeedSampler', sampler=dict(
        _delete_=True, type='TaskRatioSampler', batch_size=batch_size,
        ratios=[12, 3])),
    dataset=dict(
        _delete_=True, type='ConcatDataset',
        ignore_keys=['classes', 'change_types'],  # the two kinds' own
        datasets=[
            dict(type='BirdsToWordsDataset', data_root='{data_root}',
                 split='train', skip_missing_images=True,
                 pipeline=pretrain_pipeline),
            dict(type='NABirdsPairDataset', data_root='{nabirds_root}',
                 split='train', pipeline=nabirds_pipeline),
        ]))
model = dict(
    type='IDCPCLCrossTaskPretrainer',
    num_classes=555,
    task_weights=dict(mlm=9, mvcl=1, fda=2),
    cross_modal=dict(vocab='{vocab_file}'))
