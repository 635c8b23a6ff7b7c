# CLIP4IDC captioning on WHU-CDC, CLIP ViT-B/32, without the adaptation stage:
# the pair encoder starts from CLIP's weights (the paper's "without L"
# ablation: CIDEr 147.5 against 150.7 with adaptation on CLEVR-Change).
# Otherwise the recipe of clip4idc-caption_vit-b32_levir-cc.py: batch 16, at
# most 50 epochs, model selection on val by CIDEr(-D). To adapt first, copy
# clip4idc-adapt_vit-b32_levir-cc.py onto '../_base_/datasets/whu_cdc.py' (its
# with_no_change=False needs the set's no-change sentences: docs/datasets.md)
# and load its best_rsum_*.pth as the LEVIR-CC captioning config does.
_base_ = [
    '../_base_/datasets/whu_cdc.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
train_dataloader = dict(batch_size=16, drop_last=True)
clip_weights = 'checkpoints/clip/ViT-B-32.safetensors'
model = dict(
    backbone=dict(pretrained=clip_weights),
    init_backbone_from=None,
    head=dict(pretrained=clip_weights))  # CLIP's word embeddings
# The inter-image parameters are new here: the captioner's lr (1e-4), not
# the CLIP weights' 1e-7 (the longer custom key wins over 'backbone').
optim_wrapper = dict(paramwise_cfg=dict(custom_keys={
    'backbone.image_id_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.joint_positional_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.ln_joint': dict(lr_mult=1.0, decay_mult=0.0),
}))
