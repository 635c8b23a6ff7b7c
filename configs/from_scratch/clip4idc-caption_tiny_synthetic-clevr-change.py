# Quickstart stage 2 (CPU, minutes): the tiny captioner on the synthetic
# CLEVR-Change-style set (change and no-change pairs), its pair encoder
# initialised from stage 1 (tools/quickstart.py passes
# model.init_backbone_from=<stage-1 best checkpoint>).
_base_ = [
    '../_base_/datasets/synthetic_clevr_change_96x144.py',
    '../_base_/models/clip4idc-captioner_tiny.py',
    '../_base_/schedules/tiny_from_scratch.py', '../_base_/default_runtime.py'
]
data_root = 'data/synthetic_clevr_change'

# Restricted output vocabulary from the training captions (annotations only).
model = dict(head=dict(vocab=dict(
    _delete_=True,
    captions_from=dict(type='CLEVRChangeDataset', data_root=data_root,
                       split='train'))))
# Batch 16: the same pairs per second as 32 on 2 CPU cores, twice the updates
# in the quickstart's minutes (docs/from_scratch.md).
train_dataloader = dict(batch_size=16)
# 1e-3 (the schedule has 5e-4): with the change tokens the higher rate learns
# the objects faster in the same steps (docs/from_scratch.md).
optim_wrapper = dict(optimizer=dict(lr=1e-3))
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'),
                     logger=dict(interval=10))
