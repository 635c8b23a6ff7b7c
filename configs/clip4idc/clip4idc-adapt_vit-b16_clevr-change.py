# CLIP4IDC stage 1 on CLEVR-Change with CLIP ViT-B/16 (224 px, 196 patches
# per image): the ViT-B/32 adaptation config with the other CLIP, and its
# recipe (the published CLIP4IDC code's, which has ViT-B/16 as an option).
# OpenAI's CLIP (the paper's) uses QuickGELU: keep '-quickgelu' for its weights.
_base_ = ['./clip4idc-adapt_vit-b32_clevr-change.py']
clip_arch = 'ViT-B-16-quickgelu'
model = dict(
    backbone=dict(arch=clip_arch),
    text_encoder=dict(arch=clip_arch),
    pretrained='checkpoints/clip/ViT-B-16.safetensors')
