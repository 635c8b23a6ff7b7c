# CLIP-FT baseline (paper, table 5) in miniature: the tiny CLIP
# (python -m projects.tiny_clip.pretrain --epochs 8) encodes each image on its own
# (num_inter_layers=0: no fusion, no new parameters), no adaptation stage,
# and the encoder is fine-tuned with the captioning stage of
# clip4idc-caption_tiny-clip_synthetic-clevr-change.py, as
# clip-ft-caption_vit-b32_clevr-change.py does with ViT-B/32.
_base_ = ['../clip4idc/clip4idc-caption_tiny-clip_synthetic-clevr-change.py']
tiny_clip = 'work_dirs/tiny_clip/mmidc-tiny-clip.safetensors'
model = dict(
    backbone=dict(num_inter_layers=0, pretrained=tiny_clip),
    init_backbone_from=None,
    head=dict(pretrained=tiny_clip))  # the tiny CLIP's word embeddings
