# Your own image pairs (ImagePairDataset): JSON list or JSONL files of
# {"img1": ..., "img2": ..., "captions": [...], "pair_id"?, "change_type"?}
# with image paths relative to data_root. The other data-set bases inherit
# the pipelines defined here and write their loaders with the same builder.
#
# Captioning-stage loaders; the adaptation configs switch the pipelines to the
# retrieval ones (and, for CLEVR-Change, drop the no-change pairs).
#
# How a data-set base is written (every file in this folder; a child config
# then sets only `data_root`, docs/new_dataset.md):
#   _base_ = ['./image_pair.py']
#   data_root = 'data/<name>'                  # the distributed layout's root
#   vocab_file = data_root + '/caption_vocab_train.json'
#   _loader_setup = __import__('mmidc.runtime.loader_setup',
#                              fromlist=['pair_loaders'])
#   train_dataloader, val_dataloader, test_dataloader = \
#       _loader_setup.pair_loaders('<Reader>Dataset', data_root,
#                                  _base_.train_pipeline,
#                                  _base_.test_pipeline)
#   pair_loaders (mmidc.runtime.loader_setup) returns the three loaders
#   below for that reader, each reading data_root with its split ('train',
#   'val', 'test'; `splits=` for other names, a dict per split for other
#   arguments, as below), in place of the data set the base's loaders held.
#   Further keyword arguments go to every split's data set
#   (skip_missing_images=True); train_batch_size, test_batch_size and
#   num_workers set the loaders. A base whose pipelines differ passes its
#   own. A config that inherits a base changes a loader by merging, as
#   usual (`train_dataloader = dict(batch_size=32)`). An evaluator that
#   reads files takes data_root=data_root.
# - Every path under the data set's folder is written from data_root
#   (data_root + '/...'), never as a second literal of the folder; the image
#   cache as '{data_root}/cache_HxW' (each loader's own root, filled in by
#   LoadImagePair). A second folder (a shifted test set, extra training
#   data) gets its own top-level setting whose name ends in `_root`
#   (`shifted_root = 'data/...'`) and its paths are written from it.
# - MMEngine binds values when it reads a file, so a child's `data_root`
#   alone would not reach the loaders. tools/train.py, tools/test.py and the
#   data tools (mmidc.runtime.data_root) move every path derived from an
#   earlier value of data_root, vocab_file, adapt_work_dir or a `*_root` in
#   the config's inheritance chain to the value the config ends with (a
#   value the config file itself or --cfg-options sets is kept), and stop
#   before the first step, naming the settings, when a loader or evaluator
#   a base wrote reads a folder that is neither data_root nor another
#   `*_root`.
data_root = 'data/my_pairs'
# The caption vocabulary of the training split (the tokens a captioner
# predicts; captioning configs pass it as the decoder's vocab), written once:
#   python tools/dataset_converters/build_vocab.py CONFIG
# Each data-set base names its own under its data_root.
vocab_file = data_root + '/caption_vocab_train.json'
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

# The three loaders, written by one builder (mmidc.runtime.loader_setup.
# pair_loaders; every data-set base calls it): train 16 pairs a batch,
# shuffled; val and test 64, in order. Workers and pinned memory are
# computed when the config is read, so that every runner (tools/train.py,
# MMPretrain's tools, `mim train`, Runner.from_cfg) gets numbers: workers =
# this machine's cores shared by its training processes (one core left to
# each), at most 16; pinned memory when CUDA is available. idc_collate stacks
# the pairs into one uint8 [B, 2, 3, H, W] tensor in the workers, which the
# data preprocessor copies to the GPU in one transfer. __import__ rather than
# an `import` statement: MMEngine reads a config that imports a module (other
# than a built-in one) as a lazy-import config, and one inheritance chain
# cannot mix the two kinds; the module itself is not kept in the config.
# replace=False: this file has no loaders to inherit.
_loader_setup = __import__('mmidc.runtime.loader_setup',
                           fromlist=['pair_loaders'])
train_dataloader, val_dataloader, test_dataloader = _loader_setup.pair_loaders(
    'ImagePairDataset', data_root, train_pipeline, test_pipeline,
    splits=(dict(ann_file='train.jsonl'), dict(ann_file='val.jsonl'),
            dict(ann_file='test.jsonl')),
    replace=False)
# Total, per change type (any name), all change pairs and no-change pairs
# ("semantic" / "distractor" on CLEVR-Change's types, "change" / "no_change"
# otherwise); types absent from the data are simply not reported. The
# scoring protocol is IDCMetric's tokenizer (remote-sensing sets: 'rs_words'
# or 'rs_ids', docs/evaluation.md).
val_evaluator = dict(type='IDCMetric')
test_evaluator = val_evaluator
