# The tiny CPU architecture (see clip4idc-retriever_tiny.py) with a small
# captioner: 2 encoder + 2 decoder layers of width 256. The output vocabulary
# is restricted to the tokens of the training captions (built from the
# training set's annotations at model construction and stored in the
# checkpoint), which makes the softmax ~500x smaller than CLIP's 49,408.
_base_ = ['./clip4idc-retriever_tiny.py']
model = dict(
    _delete_=True,
    type='CLIP4IDCCaptioner',
    backbone=dict(type='CLIP4IDCBackbone', arch={{_base_.tiny_arch}},
                  num_inter_layers=2),
    head=dict(type='TransformerCaptionHead', hidden=256, num_heads=4,
              num_encoder_layers=2, num_decoder_layers=2, dropout=0.1,
              max_length=32, vocab=None),
    decode_cfg=dict(strategy='greedy'),
    init_backbone_from=None)
