# The tiny CPU architecture (see clip4idc-retriever_tiny.py) with a small
# captioner: 1 encoder + 2 decoder layers of width 128, no dropout (the
# quickstart trains for a few epochs only; dropout's random masks also cost
# ~15% of a CPU step). From random weights the caption loss alone teaches the
# change type long before the object's attributes; the head's max-pooled
# memory tokens and bag-of-words loss give the backbone a direct signal for
# them; the loss's targets weight each word by the share of the pair's
# references that contain it; two change-attention readouts add a before and
# an after token of the changed position to the memory and to the word
# classifier's input; the word classifier's log-belief is added to the
# decoder's next-word logits (word_prior), so the captions name the attributes
# it read (docs/from_scratch.md).
_base_ = ['./clip4idc-retriever_tiny.py']
model = dict(
    _delete_=True,
    type='CLIP4IDCCaptioner',
    backbone=dict(type='CLIP4IDCBackbone', arch={{_base_.tiny_arch}},
                  num_inter_layers=1, conv_stem=(32, 64, 128),
                  difference_tokens=True, aligned_difference=True,
                  alignment_stage=1),
    head=dict(type='TransformerCaptionHead', hidden=128, num_heads=2,
              num_encoder_layers=1, num_decoder_layers=2, dropout=0.0,
              max_length=32, vocab=None, pooled_memory_tokens=True,
              word_loss_weight=10.0, word_targets='references',
              change_tokens=2, word_prior=True),
    decode_cfg=dict(strategy='greedy'),
    init_backbone_from=None)
