# CLIP-FT on the pretrained tiny CLIP: each image encoded alone by the tiny
# CLIP's 4 blocks (no inter block, no difference segment, no adaptation),
# then the recipe's caption side (ChangeSummaryNeck, BagOfWordsHead word
# prior, ScratchCaptionHead, AdamW, batch 16, 5 epochs) compares them.
# Of the tiny-CLIP ablation rows (docs/ablations_tiny_clip.md) this is the
# one best on val; the quickstart (`--tiny-clip`) trains it after the
# from-scratch recipe. The encoder starts from the file that
# `python -m projects.tiny_clip.pretrain --epochs 8` writes.
_base_ = ['./clip4idc-caption_tiny-clip-diff_synthetic-clevr-change.py']
model = dict(
    backbone=dict(num_inter_layers=0, extra_segments=[]),
    init_backbone_from=None)
