# CLIP4IDC adaptation-stage model on CLIP ViT-B/32 (224 px, 49 patches):
# 9 intra blocks on each image, 3 inter blocks on the joint sequence.
# `pretrained` is a CLIP checkpoint you supply: an open_clip/OpenAI state dict
# (.pt/.bin/.safetensors), or OpenAI's TorchScript file converted once with
# tools/model_converters/openai_clip_to_safetensors.py.
# OpenAI's CLIP (the paper's) uses QuickGELU: keep '-quickgelu' for its weights.
clip_arch = 'ViT-B-32-quickgelu'
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=clip_arch,
                  num_inter_layers=3, img_size=224),
    text_encoder=dict(type='CLIPTextEncoder', arch=clip_arch),
    head=dict(type='ContrastiveAdaptationHead'),
    pretrained='checkpoints/clip/ViT-B-32.safetensors')
