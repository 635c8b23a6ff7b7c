# CLIP4IDC's captioning-stage model at the tiny CPU size (see
# configs/_base_/models/clip4idc-retriever_tiny.py) with a small captioner of
# its own word embeddings (ScratchCaptionHead, the recipe's head, which
# also takes the recipe's summary tokens and word prior; the recipe's
# ConditionedCaptioner gives them to it): 1 encoder + 2
# decoder pre-LN layers of width 128, no dropout (CPU runs train for a few
# epochs only; dropout's random masks also cost ~15% of a CPU step). The
# paper's pair encoder, nothing added; the recipe's configs add the rest
# (../scratch_parts.py). A config based on it imports the recipe's components
# (custom_imports, as the recipe's configs do).
_base_ = ['../../../../../configs/_base_/models/clip4idc-retriever_tiny.py']
model = dict(
    _delete_=True,
    type='ConditionedCaptioner',
    backbone=dict(type='CLIP4IDCBackbone', arch={{_base_.tiny_arch}},
                  num_inter_layers=1),
    head=dict(type='ScratchCaptionHead', hidden=128, num_heads=2,
              num_encoder_layers=1, num_decoder_layers=2, dropout=0.0,
              max_length=32, vocab=None),
    decode_cfg=dict(strategy='greedy'),
    init_backbone_from=None)
