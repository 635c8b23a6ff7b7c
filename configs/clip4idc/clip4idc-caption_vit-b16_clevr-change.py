# CLIP4IDC stage 2 on CLEVR-Change with CLIP ViT-B/16: the ViT-B/32
# captioning config with the other CLIP; 2(n+1) = 394 tokens feed the
# captioner. The encoder comes from the ViT-B/16 adaptation run. The recipe
# is the ViT-B/32 config's (the published CLIP4IDC code's).
_base_ = ['./clip4idc-caption_vit-b32_clevr-change.py']
clip_arch = 'ViT-B-16-quickgelu'
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b16_clevr-change'
model = dict(
    backbone=dict(arch=clip_arch),
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    head=dict(pretrained='{adapt_work_dir}/best_rsum_*.pth'))
