# Image-Editing-Request (Tan et al. 2019): {train,valid,test}.json + images/.
_base_ = ['./image_pair.py']
data_root = 'data/image_editing_request'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='ImageEditingRequestDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='ImageEditingRequestDataset', data_root='{data_root}',
    split='valid', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='ImageEditingRequestDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))
