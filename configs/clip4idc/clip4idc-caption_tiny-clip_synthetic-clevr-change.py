# CLIP4IDC stage 2 in miniature (CPU, minutes): the paper config
# clip4idc-caption_vit-b32_clevr-change.py with only the scale changed: the
# adapted tiny CLIP pair encoder (clip4idc-adapt_tiny-clip_...'s best
# checkpoint), TransformerCaptionHead at the tiny CLIP's text width (128, tied to
# its token embedding), the synthetic set at 96x144, and the epochs below.
# Same classes, same recipe (BertAdam, the backbone at 1e-3 of the head's
# rate, PairedSceneSampler with the paired-scene loss, greedy decoding).
# Measured with seed 0 (docs/tiny_clip.md, "The paper's path in miniature"):
# at this budget every caption is the no-change sentence (val CIDEr-D 65.86).
# The caption side that learns on this encoder, with the three-seed
# ablations: projects/from_scratch/configs/*_tiny-clip-diff_*.
_base_ = ['./clip4idc-caption_vit-b32_clevr-change.py']
data_root = 'data/synthetic_clevr_change'
image_size = (96, 144)
adapt_work_dir = 'work_dirs/clip4idc-adapt_tiny-clip_synthetic-clevr-change'
model = dict(
    backbone=dict(arch='mmidc-tiny-clip', img_size=None, num_inter_layers=1),
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    # hidden must equal the tiny CLIP's text width (its token embedding is
    # the head's word embedding); 4 heads of 32 as the tiny CLIP's
    head=dict(hidden=128, num_heads=4,
              pretrained='{adapt_work_dir}/best_rsum_*.pth'))
synthetic_data = dict(num_scenes=3000, image_size=(240, 160), seed=0)
load_pair = dict(type='LoadImagePair', cache_dir='{data_root}/cache_96x144',
                 cache_size=image_size)
train_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='PackIDCInputs'),
]
test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(
    num_workers=1, dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(pipeline=test_pipeline))
test_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(pipeline=test_pipeline))
val_evaluator = [
    dict(type='IDCMetric'),
    dict(type='CaptionTruthMetric', data_root='{data_root}'),
]
test_evaluator = val_evaluator
# Four epochs instead of at most 50: the quickstart's minutes.
max_epochs = 4
train_cfg = dict(max_epochs=max_epochs, val_interval=1)
default_hooks = dict(logger=dict(interval=10))
