# A tiny CLIP-shaped architecture for CPU runs, trained from scratch (no
# pretrained weights): 4 vision blocks of width 128 (3 intra + 1 inter),
# 16 px patches on 96x144 images (6x9 = 54 patches per image), a 1-block
# text tower. Same code path as ViT-B/32, plus the two from-scratch options
# of CLIP4IDCBackbone: a convolutional stem instead of the patch conv and
# difference tokens (after - before) in the inter blocks' input. Without
# them the random-init tiny ViT does not learn to see the change on CPU
# time scales (docs/from_scratch.md). The difference segment also gets an
# aligned difference of the stem's stride-4 features (each position against
# its best match within 4 px of the other image), so that the camera move
# between the images does not read as a change. The pair vector is the
# channel-wise max of all output tokens: the mean dilutes the one changed
# object.
tiny_arch = dict(
    embed_dim=128,
    vision_cfg=dict(image_size=(96, 144), layers=4, width=128,
                    head_width=64, patch_size=16),
    text_cfg=dict(context_length=32, vocab_size=49408, width=128, heads=2,
                  layers=1))
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                  num_inter_layers=1, conv_stem=(32, 64, 128),
                  difference_tokens=True, aligned_difference=True,
                  alignment_stage=1, pool='max'),
    text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch),
    head=dict(type='ContrastiveAdaptationHead'))
