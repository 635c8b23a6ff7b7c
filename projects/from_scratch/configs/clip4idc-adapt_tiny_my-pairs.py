# Stage 1 of the from-scratch recipe on your own pairs (CPU, no CLIP
# weights): contrastive adaptation of the tiny pair encoder. data_root holds
# train.jsonl / val.jsonl / test.jsonl, one {"img1", "img2", "captions"} a
# line (docs/new_dataset.md). The quickstart's stage 1
# (clip4idc-adapt_tiny_synthetic-clevr-change.py) on the own-pairs loaders
# at the tiny model's 96x144.
_base_ = [
    '../../../configs/_base_/datasets/image_pair_96x144.py',
    '../../../configs/_base_/models/clip4idc-retriever_tiny.py',
    '../../../configs/_base_/schedules/tiny_from_scratch.py',
    './_base_/default_runtime.py', './_base_/scratch_parts.py'
]
data_root = 'data/my_pairs'
model = dict(backbone={{_base_.scratch_backbone}},
             neck={{_base_.scratch_pair_pooling}})
# The loaders on this data_root (a child config sets only data_root,
# docs/new_dataset.md).
val_dataloader = dict(dataset=dict(
    data_root='{data_root}', pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader  # merged with the base's test.jsonl
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

# The quickstart's stage 1 settings (see its config for the reasons).
max_epochs = 2
optim_wrapper = dict(optimizer=dict(lr=3e-4))
train_cfg = dict(max_epochs=max_epochs)  # validated every epoch
default_hooks = dict(checkpoint=dict(save_best='rsum', rule='greater'),
                     logger=dict(interval=10))
