# The synthetic CLEVR-Change-style set (tools/generate_synthetic_clevr_change.py), same layout as CLEVR-Change.
_base_ = ['./image_pair.py']
data_root = 'data/synthetic_clevr_change'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='CLEVRChangeDataset', data_root=data_root, split='train',
    pipeline={{_base_.train_pipeline}}))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='CLEVRChangeDataset', data_root=data_root, split='val',
    pipeline={{_base_.test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='CLEVRChangeDataset', data_root=data_root, split='test',
    pipeline={{_base_.test_pipeline}}))
