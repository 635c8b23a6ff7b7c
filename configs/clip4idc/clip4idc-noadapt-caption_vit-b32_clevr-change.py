# Ablation "CLIP4IDC without L" (paper, table 5) on CLEVR-Change: the
# intra/inter pair encoder starts from CLIP's weights with no adaptation
# stage. Paper: CIDEr 147.5 (with adaptation 150.7). The recipe is the
# captioning config's (the published CLIP4IDC code's; it has no script for
# this ablation), except for the inter-image parameters below.
_base_ = ['./clip4idc-caption_vit-b32_clevr-change.py']
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
