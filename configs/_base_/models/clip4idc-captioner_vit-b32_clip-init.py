# The CLIP4IDC captioner on CLIP ViT-B/32 without the adaptation stage: the
# pair encoder and the word embeddings start from CLIP's weights (the paper's
# "without L" ablation). The inter-image parameters are new then: a config
# gives them the captioner's lr, not the CLIP weights' (the longer custom key
# wins over 'backbone'):
#   optim_wrapper = dict(paramwise_cfg=dict(
#       custom_keys={{_base_.new_param_keys}}))
_base_ = ['./clip4idc-captioner_vit-b32.py']
clip_weights = 'checkpoints/clip/ViT-B-32.safetensors'
model = dict(
    backbone=dict(pretrained=clip_weights),
    init_backbone_from=None,
    head=dict(pretrained=clip_weights))  # CLIP's word embeddings
new_param_keys = {
    'backbone.image_id_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.joint_positional_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.ln_joint': dict(lr_mult=1.0, decay_mult=0.0),
}
