# The from-scratch quickstart's stage 2 with the example project's
# GRUCaptionHead in place of ScratchCaptionHead. The recipe's summary neck
# and bag-of-words head (whose word prior would bias this head's logits)
# are dropped with it: compare it with the recipe's config run with
# --cfg-options model.neck=None model.aux_head=None, the same model but for
# the head. Pair encoder, data, schedule and runtime are the shipped
# config's.
_base_ = [
    '../../from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py'
]
# mmidc, the recipe's components (its pair encoder parts) and this project's
custom_imports = dict(
    imports=['mmidc', 'projects.from_scratch', 'projects.example_project'],
    allow_failed_imports=False)
model = dict(
    neck=None,
    aux_head=None,
    head=dict(_delete_=True, type='GRUCaptionHead', hidden=128,
              max_length=32, vocab={{_base_.vocab_file}}))
# Without the bag-of-words head no step reads every reference of a pair:
# the training pipeline tokenizes one caption per pair, as the paper's does.
train_pipeline = [
    {{_base_.load_pair}},
    dict(type='ResizePair', size={{_base_.image_size}}),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
