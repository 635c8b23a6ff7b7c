# CLIP4IDC's adaptation-stage model at a tiny, CLIP-shaped size for CPU runs:
# 4 vision blocks of width 128 (3 intra + 1 inter), 16 px patches on 96x144
# images (6x9 = 54 patches per image), a 1-block text tower. The paper's
# architecture, nothing added: trained from random weights it does not learn
# to see the change on CPU time scales; the from-scratch recipe
# (projects/from_scratch/) adds the components that make it learn.
tiny_arch = dict(
    embed_dim=128,
    vision_cfg=dict(image_size=(96, 144), layers=4, width=128,
                    head_width=64, patch_size=16),
    text_cfg=dict(context_length=32, vocab_size=49408, width=128, heads=2,
                  layers=1))
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                  num_inter_layers=1),
    text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch),
    head=dict(type='ContrastiveAdaptationHead',
              loss=dict(type='MultiPositiveInfoNCELoss')))
