# IDC-PCL pre-training at a CPU size on the synthetic CLEVR-Change-style set
# (the quickstart or tools/generate_synthetic_clevr_change.py writes it,
# with its 96x144 image cache): MLM, MVCL and FDA on the change and
# no-change pairs of the training split. FDA's hard negatives are read from
# hard_negatives_train.json, written once with
#   python tools/dataset_converters/make_hard_negatives.py \
#       --dataset-type CLEVRChangeDataset \
#       --data-root data/synthetic_clevr_change --split train
# No validation: the captioning config picks its checkpoint on val.
_base_ = [
    '../_base_/datasets/synthetic_clevr_change_96x144.py',
    '../_base_/models/idc_pcl-pretrainer_tiny.py',
    '../_base_/schedules/tiny_from_scratch.py', '../_base_/default_runtime.py'
]
data_root = 'data/synthetic_clevr_change'
negatives_file = '{data_root}/hard_negatives_train.json'
pretrain_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='SampleHardNegatives', negatives_file=negatives_file,
         num_negatives=6),
    dict(type='PackIDCInputs',
         meta_keys=('pair_id', 'change_type', 'gt_captions',
                    'negative_captions')),
]
train_dataloader = dict(batch_size=32,
                        dataset=dict(pipeline=pretrain_pipeline))
val_dataloader = None
val_cfg = None
val_evaluator = None
test_dataloader = None
test_cfg = None
test_evaluator = None

# Caption vocabulary of the training captions (the data set's vocabulary
# file, written by the generator); the captioning config reads the same one,
# so the word embeddings carry over.
model = dict(cross_modal=dict(vocab='{vocab_file}'))
model_wrapper_cfg = dict(type='MMDistributedDataParallel',
                         find_unused_parameters=True)

# One epoch of the change and no-change pairs: 150 steps of 32 pairs, the
# steps of the tiny CLIP4IDC recipe's adaptation stage (2 epochs of the
# change pairs only).
max_epochs = 1
param_scheduler = [
    dict(type='LinearLR', start_factor=0.02, by_epoch=False, begin=0,
         end=50),
    # No `end`: MMEngine ends it at train_cfg.max_epochs, so a child config
    # that changes max_epochs keeps the whole decay.
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0,
         eta_min_ratio=0.05, convert_to_iter_based=True),
]
train_cfg = dict(_delete_=True, type='EpochBasedTrainLoop', max_epochs=max_epochs)
default_hooks = dict(checkpoint=dict(interval=max_epochs),
                     logger=dict(interval=10))
