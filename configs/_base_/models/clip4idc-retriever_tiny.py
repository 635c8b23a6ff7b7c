# A tiny CLIP-shaped architecture for CPU runs, trained from scratch (no
# pretrained weights): 6 vision blocks of width 192 (4 intra + 2 inter),
# 16 px patches on 128x192 images (8x12 = 96 patches per image), a 2-block
# text tower. Same code path as ViT-B/32; only the sizes differ.
tiny_arch = dict(
    embed_dim=256,
    vision_cfg=dict(image_size=(128, 192), layers=6, width=192,
                    head_width=64, patch_size=16),
    text_cfg=dict(context_length=32, vocab_size=49408, width=128, heads=2,
                  layers=2))
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                  num_inter_layers=2),
    text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch),
    head=dict(type='ContrastiveAdaptationHead'))
