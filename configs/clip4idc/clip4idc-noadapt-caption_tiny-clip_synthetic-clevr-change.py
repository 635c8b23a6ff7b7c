# Ablation "CLIP4IDC without L" (paper, table 5) in miniature: the caption
# stage of clip4idc-caption_tiny-clip_synthetic-clevr-change.py with the
# pair encoder started from the tiny CLIP (python -m projects.tiny_clip.pretrain
# --epochs 8) instead of an adaptation run, as
# clip4idc-noadapt-caption_vit-b32_clevr-change.py does with ViT-B/32.
# Measured with head.vocab, lr 1e-3 and a difference segment
# (docs/tiny_clip.md): the no-change sentence for every pair, as with
# adaptation; at this scale a decoder needs a word prior to leave it.
_base_ = ['./clip4idc-caption_tiny-clip_synthetic-clevr-change.py']
tiny_clip = 'work_dirs/tiny_clip/mmidc-tiny-clip.safetensors'
model = dict(
    backbone=dict(pretrained=tiny_clip),
    init_backbone_from=None,
    head=dict(pretrained=tiny_clip))  # the tiny CLIP's word embeddings
# The inter-image parameters are new here: the captioner's rate, not the
# CLIP weights' (the longer custom key wins over 'backbone').
optim_wrapper = dict(paramwise_cfg=dict(custom_keys={
    'backbone.image_id_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.joint_positional_embedding': dict(lr_mult=1.0, decay_mult=0.0),
    'backbone.ln_joint': dict(lr_mult=1.0, decay_mult=0.0),
}))
