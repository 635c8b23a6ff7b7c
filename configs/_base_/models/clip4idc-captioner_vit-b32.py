# CLIP4IDC captioning-stage model on CLIP ViT-B/32: the (adapted) pair
# encoder's 2(n+1) = 100 projected tokens feed a captioning Transformer
# trained from scratch (3 encoder + 3 decoder layers, hidden 512, 8 heads,
# dropout 0.1), greedy decoding up to 32 tokens.
# OpenAI's CLIP (the paper's) uses QuickGELU: keep '-quickgelu' for its weights.
# frozen_stages=0: the patch conv, class and positional embeddings and ln_pre
# stay fixed, as in the published code (--freeze_layer_num 0).
clip_arch = 'ViT-B-32-quickgelu'
model = dict(
    type='CLIP4IDCCaptioner',
    backbone=dict(type='CLIP4IDCBackbone', arch=clip_arch,
                  num_inter_layers=3, img_size=224, frozen_stages=0),
    head=dict(type='TransformerCaptionHead', hidden=512, num_heads=8,
              num_encoder_layers=3, num_decoder_layers=3, dropout=0.1,
              max_length=32, vocab=None),  # None: CLIP's full 49,408
    decode_cfg=dict(strategy='greedy'),
    # The adaptation stage's best checkpoint (set by each captioning config).
    init_backbone_from=None)
