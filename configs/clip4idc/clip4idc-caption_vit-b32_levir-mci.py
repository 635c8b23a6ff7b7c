# CLIP4IDC stage 2 on LEVIR-MCI, CLIP ViT-B/32, after
# clip4idc-adapt_vit-b32_levir-mci.py (LEVIR-MCI holds LEVIR-CC's pairs and
# captions, so --cfg-options adapt_work_dir=work_dirs/clip4idc-adapt_vit-b32_levir-cc
# reuses a LEVIR-CC adaptation run instead); the change masks are passed along
# as mask_path. Otherwise the recipe of clip4idc-caption_vit-b32_levir-cc.py.
# Model selection on val by CIDEr(-D).
_base_ = [
    '../_base_/datasets/levir_mci.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
train_dataloader = dict(batch_size=16, drop_last=True)
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b32_levir-mci'
model = dict(
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    head=dict(pretrained='{adapt_work_dir}/best_rsum_*.pth'))
