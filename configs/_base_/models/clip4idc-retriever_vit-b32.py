# CLIP4IDC adaptation-stage model on CLIP ViT-B/32 (224 px, 49 patches):
# 9 intra blocks on each image, 3 inter blocks on the joint sequence.
# `pretrained` is a CLIP checkpoint you supply: an open_clip/OpenAI state dict
# (.pt/.bin/.safetensors), or OpenAI's TorchScript file converted once with
# tools/model_converters/openai_clip_to_safetensors.py.
# OpenAI's CLIP (the paper's) uses QuickGELU: keep '-quickgelu' for its weights.
# As the published CLIP4IDC code trains it (configs/clip4idc/README.md):
# - frozen_stages=0 in both towers: the patch conv, class and positional
#   embeddings and ln_pre of the vision tower, the token and positional
#   embeddings of the text tower stay fixed (its --freeze_layer_num 0);
# - the loss is the average of the two directions, (L_p2t + L_t2p) / 2
#   (the loss's two_way_reduction='sum' gives the paper's sum: twice the
#   gradient);
# - the logit scale is used unclamped and clamped to ln 100 after each
#   optimizer step (the schedule's LogitScaleClampHook); without that hook
#   it is clamped in the forward pass instead, where its gradient is zero at
#   ln 100, OpenAI's value.
# Identical captions in a batch stay positives of each other's pairs
# (MultiPositiveInfoNCELoss; the reference treats them as negatives:
# SymmetricInfoNCELoss).
# The new inter-image parameters start from CLIP's positional embedding
# tiled per image and image-id vectors of std 0.02; the reference draws both
# from N(0, width^-0.5): backbone.new_param_init=dict(
# type='WidthScaledNormalInit').
clip_arch = 'ViT-B-32-quickgelu'
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=clip_arch,
                  num_inter_layers=3, img_size=224, frozen_stages=0),
    text_encoder=dict(type='CLIPTextEncoder', arch=clip_arch,
                      frozen_stages=0),
    head=dict(type='ContrastiveAdaptationHead',
              loss=dict(type='MultiPositiveInfoNCELoss',
                        two_way_reduction='mean')),
    pretrained='checkpoints/clip/ViT-B-32.safetensors')
