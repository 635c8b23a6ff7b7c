# CLIP-FT baseline (paper, table 5) on CLEVR-Change: CLIP ViT-B/32 encodes
# each image on its own (num_inter_layers=0: no fusion, no new parameters),
# there is no adaptation stage, and the encoder, initialised from CLIP, is
# fine-tuned with the same captioner, schedule and vocabulary as CLIP4IDC.
# Paper: CIDEr 133.9 (CLIP4IDC 150.7). The recipe is the CLIP4IDC
# captioning config's (the published CLIP4IDC code's; it has no CLIP-FT
# script).
_base_ = ['../clip4idc/clip4idc-caption_vit-b32_clevr-change.py']
clip_weights = 'checkpoints/clip/ViT-B-32.safetensors'
model = dict(
    backbone=dict(num_inter_layers=0, pretrained=clip_weights),
    init_backbone_from=None,
    head=dict(pretrained=clip_weights))  # CLIP's word embeddings
