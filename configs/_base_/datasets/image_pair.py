# Your own image pairs (ImagePairDataset): JSON list or JSONL files of
# {"img1": ..., "img2": ..., "captions": [...], "pair_id"?, "change_type"?}
# with image paths relative to data_root. The other data-set bases inherit
# the pipelines and loaders defined here and replace the loaders' data set.
#
# Captioning-stage loaders; the adaptation configs switch the pipelines to the
# retrieval ones (and, for CLEVR-Change, drop the no-change pairs).
#
# How a data-set base is written (every file in this folder; a child config
# then sets only `data_root`, docs/new_dataset.md). A config is data: it
# imports nothing, and every path under a folder is written once with a
# placeholder that the run fills from the values the config ends with
# (mmidc.utils.fill_placeholders, called by tools/train.py, tools/test.py,
# the data tools and the inferencers):
#   _base_ = ['./image_pair.py']
#   data_root = 'data/<name>'                  # the distributed layout's root
#   train_dataloader = dict(dataset=dict(
#       _delete_=True, type='<Reader>Dataset', data_root='{data_root}',
#       split='train', pipeline=_base_.train_pipeline))
#   val_dataloader = dict(dataset=dict(
#       _delete_=True, type='<Reader>Dataset', data_root='{data_root}',
#       split='val', pipeline=_base_.test_pipeline))
#   test_dataloader = ... split='test' ...
# `_delete_=True` replaces the data set of the loaders below (this file's
# ImagePairDataset) and keeps their batch sizes, workers, sampler and
# collate function. A config that inherits a base changes a loader by
# merging, as usual (`train_dataloader = dict(batch_size=32)`).
# - Every path under the data set's folder is written as '{data_root}/...'
#   (vocab_file, an evaluator's data_root or vocab_ann_file), never as a
#   second literal of the folder; inside a data set '{data_root}' is that
#   data set's own folder (the image cache '{data_root}/cache_HxW' follows
#   each loader). A second folder (a shifted test set, extra training data)
#   gets its own top-level setting whose name ends in `_root`
#   (`shifted_root = 'data/...'`) and its paths are written
#   '{shifted_root}/...'. A placeholder with no top-level setting of its
#   name stops the run naming it.
# - The run stops before the first step, naming the settings, when a loader
#   or evaluator a base wrote reads a folder that is neither data_root nor
#   another `*_root` (a value the config file itself or --cfg-options sets
#   is kept and logged).
data_root = 'data/my_pairs'
# The caption vocabulary of the training split (the tokens a captioner
# predicts; captioning configs pass it as the decoder's vocab), written once:
#   python tools/dataset_converters/build_vocab.py CONFIG
# Each data-set base names its own under its data_root.
vocab_file = '{data_root}/caption_vocab_train.json'
image_size = (224, 224)
context_length = 32
# The pre-resized cache under a data root (<data_root>/cache_<H>x<W>), read
# when it is there; `tools/train.py CONFIG --image-cache` builds it (or
# tools/dataset_converters/build_resized_cache.py); without it the images are
# decoded and resized every step (docs/datasets.md). '{data_root}' is each
# loader's own data_root, so a child config that sets its loaders' data_root
# moves the cache along.
load_pair = dict(type='LoadImagePair',
                 cache_dir='{data_root}/cache_%dx%d' % image_size,
                 cache_size=image_size)
train_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=context_length,
         mode='random'),
    dict(type='PackIDCInputs'),
]
test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='PackIDCInputs'),
]
# Every caption of a pair is embedded for retrieval evaluation.
retrieval_test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=context_length, mode='all'),
    dict(type='PackIDCInputs'),
]

# The three loaders: train 16 pairs a batch, shuffled; val and test 64, in
# order. num_workers='auto' and pin_memory='auto' are set for the machine
# when the run starts (tools/train.py, tools/test.py:
# mmidc.runtime.loader_setup.resolve_loader_defaults): workers = this
# machine's cores shared by its training processes (one core left to each),
# at most 16; pinned memory when CUDA is available. idc_collate stacks the
# pairs into one uint8 [B, 2, 3, H, W] tensor in the workers, which the data
# preprocessor copies to the GPU in one transfer.
train_dataloader = dict(
    batch_size=16,
    num_workers='auto',
    pin_memory='auto',
    persistent_workers=True,
    # the random transforms' draws keyed by visit: exact resumes
    sampler=dict(type='SampleSeedSampler',
                 sampler=dict(type='DefaultSampler', shuffle=True)),
    collate_fn=dict(type='idc_collate'),
    dataset=dict(type='ImagePairDataset', data_root='{data_root}',
                 ann_file='train.jsonl', pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=64,
    num_workers='auto',
    pin_memory='auto',
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='idc_collate'),
    dataset=dict(type='ImagePairDataset', data_root='{data_root}',
                 ann_file='val.jsonl', pipeline=test_pipeline))
test_dataloader = dict(
    batch_size=64,
    num_workers='auto',
    pin_memory='auto',
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='idc_collate'),
    dataset=dict(type='ImagePairDataset', data_root='{data_root}',
                 ann_file='test.jsonl', pipeline=test_pipeline))
# Total, per change type (any name), all change pairs and no-change pairs
# ("semantic" / "distractor" on CLEVR-Change's types, "change" / "no_change"
# otherwise); types absent from the data are simply not reported. The
# scoring protocol is IDCMetric's tokenizer (remote-sensing sets: 'rs_words'
# or 'rs_ids', docs/evaluation.md).
val_evaluator = dict(type='IDCMetric')
test_evaluator = val_evaluator
