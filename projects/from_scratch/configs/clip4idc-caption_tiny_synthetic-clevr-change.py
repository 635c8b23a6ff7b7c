# Quickstart stage 2 (CPU, minutes): the tiny captioner on the synthetic
# CLEVR-Change-style set (change and no-change pairs), its pair encoder
# initialised from stage 1's best checkpoint (the quickstart passes its
# own with --cfg-options model.init_backbone_from=...; captioning without
# adaptation: model.init_backbone_from=None).
# The from-scratch recipe: CLIP4IDC's tiny architecture with the components
# of _base_/scratch_parts.py, trained from random weights.
_base_ = [
    '../../../configs/_base_/datasets/synthetic_clevr_change_96x144.py',
    './_base_/models/clip4idc-captioner_tiny.py',
    '../../../configs/_base_/schedules/tiny_from_scratch.py',
    './_base_/default_runtime.py', './_base_/scratch_parts.py'
]

# Stage 1 run with tools/train.py's default work dir; a glob, resolved to
# the newest match when the model is built (no match: an error naming it).
adapt_work_dir = 'work_dirs/clip4idc-adapt_tiny_synthetic-clevr-change'
# The captioner composes, besides the caption head: the recipe's pair
# encoder parts (backbone), a summary-token neck (neck), a bag-of-words head
# with its loss (aux_head) and that head's word prior added to the caption
# head's logits (aux_head.word_prior). A config based on this one that
# swaps only model.head keeps all of them: to compare caption heads alone,
# also set model.neck=None and model.aux_head=None (the build log's
# 'ConditionedCaptioner composes: ...' line says what a model holds).
model = dict(
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    backbone={{_base_.scratch_backbone}},
    neck={{_base_.scratch_neck}},
    aux_head={{_base_.scratch_aux_head}},
    # Restricted output vocabulary: the tokens of the training captions
    # (the data set's vocabulary file, written by the generator).
    head=dict(vocab='{vocab_file}'))
# The bag-of-words head reads every reference of a pair.
train_pipeline = [
    {{_base_.load_pair}},
    dict(type='ResizePair', size={{_base_.image_size}}),
    dict(type='TokenizeCaptions', context_length=32, mode='random'),
    dict(type='TokenizeCaptions', context_length=32, mode='all',
         key='ref_tokens'),
    dict(type='PackIDCInputs'),
]
# Batch 16: the same pairs per second as 32 on 2 CPU cores, twice the
# updates in the same time.
train_dataloader = dict(batch_size=16,
                        dataset=dict(pipeline=train_pipeline))
# 1e-3: the recipe's captioning rate (the schedule's default is 5e-4).
optim_wrapper = dict(optimizer=dict(lr=1e-3))
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'),
                     logger=dict(interval=10))
