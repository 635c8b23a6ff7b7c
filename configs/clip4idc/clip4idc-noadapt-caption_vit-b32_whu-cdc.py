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
    '../_base_/models/clip4idc-captioner_vit-b32_clip-init.py',
    '../_base_/schedules/captioning.py'
]
train_dataloader = dict(batch_size=16, drop_last=True)
optim_wrapper = dict(paramwise_cfg=dict(
    custom_keys={{_base_.new_param_keys}}))
