# idc-pcl-caption_resnet101_clevr-change.py on cached ResNet-101 features.
# Its checkpoints hold no backbone: to caption new image pairs
# (IDCInferencer, tools/caption_pair.py), use the image config
# idc-pcl-caption_resnet101_clevr-change.py, whose frozen backbone computes
# the same features (docs/idc_pcl.md).
_base_ = [
    '../_base_/datasets/clevr_change_resnet101_features.py',
    '../_base_/models/idc_pcl-captioner_resnet101.py',
    '../_base_/schedules/idc_pcl_finetune.py'
]
pretrain_work_dir = 'work_dirs/idc-pcl-pretrain_resnet101-features_clevr-change'
train_dataloader = dict(batch_size=200)
model = dict(
    **_base_.cached_features,
    init_from='{pretrain_work_dir}/iter_*.pth',
    cross_modal=dict(vocab='{vocab_file}'))
