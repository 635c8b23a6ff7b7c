# CLIP4IDC stage 1 in miniature (CPU, minutes): the paper config
# clip4idc-adapt_vit-b32_clevr-change.py with only the scale changed: the
# tiny CLIP (mmidc-tiny-clip, pretrained by python -m projects.tiny_clip.pretrain)
# instead of ViT-B/32, the synthetic CLEVR-Change-style set at 96x144, and
# the batch, epochs and learning rates below. Same classes, same recipe
# (BertAdam, weight decay 0.2, warm-up cosine, the logit-scale clamp hook,
# the distractor swap, the CLS-mean pair vector, frozen_stages=0).
# Measured with seed 0 (docs/tiny_clip.md, "The paper's path in miniature"):
# val rsum 45.10 at lr 1e-4 against 35.60 at 1e-5 (so 1e-4 below); test R@1
# 2.33 / 2.77 (pair->text / text->pair), 7-8x chance.
_base_ = ['./clip4idc-adapt_vit-b32_clevr-change.py']
data_root = 'data/synthetic_clevr_change'
image_size = (96, 144)
# python -m projects.tiny_clip.pretrain's output (its default --work-dir).
tiny_clip = 'work_dirs/tiny_clip/mmidc-tiny-clip.safetensors'
# The tiny CLIP has 4 vision blocks: 3 intra + 1 inter (the paper's 9 + 3
# of 12, the same quarter inter).
model = dict(
    backbone=dict(arch='mmidc-tiny-clip', img_size=None, num_inter_layers=1),
    text_encoder=dict(arch='mmidc-tiny-clip'),
    pretrained=tiny_clip)
# What the quickstart generates when data_root is empty.
synthetic_data = dict(num_scenes=3000, image_size=(240, 160), seed=0)
load_pair = dict(type='LoadImagePair', cache_dir='{data_root}/cache_96x144',
                 cache_size=image_size)
train_pipeline = [
    dict(type='RandomDistractorBefore', prob=0.5),
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='PackIDCInputs'),
]
retrieval_test_pipeline = [
    load_pair,
    dict(type='ResizePair', size=image_size),
    dict(type='TokenizeCaptions', context_length=32, mode='all'),
    dict(type='PackIDCInputs'),
]
# Batch 64 (the paper's 128 halves the steps of a CPU epoch budget).
train_dataloader = dict(
    batch_size=64, num_workers=1,
    dataset=dict(pipeline=train_pipeline))
auto_scale_lr = dict(base_batch_size=64)  # the batch its rates were chosen at
val_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(pipeline=retrieval_test_pipeline))
test_dataloader = dict(
    batch_size=128, num_workers=1,
    dataset=dict(pipeline=retrieval_test_pipeline))
# Two epochs instead of 12: the quickstart's minutes (an epoch visits each
# of the ~2400 train pairs once per caption).
max_epochs = 2
train_cfg = dict(max_epochs=max_epochs, val_interval=1)
# The paper's rates (1e-7 for CLIP, x1e3 = 1e-4 for the new inter-image
# parameters) are for a 150M-parameter CLIP over 12 epochs of 34k scenes; in
# two short epochs of a 7M-parameter CLIP, 1e-7 changes nothing. 1e-4 for
# the CLIP weights (chosen on val over 1e-5), the new parameters at 10x.
optim_wrapper = dict(
    optimizer=dict(lr=1e-4),
    paramwise_cfg=dict(custom_keys={
        'image_id_embedding': dict(lr_mult=10),
        'joint_positional_embedding': dict(lr_mult=10),
        'ln_joint': dict(lr_mult=10)}))
default_hooks = dict(logger=dict(interval=10))
