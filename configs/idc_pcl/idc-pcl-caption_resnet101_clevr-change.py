# IDC-PCL fine-tuning on CLEVR-Change as published: the pre-trained model
# as a seq2seq captioner with the distractor judge, Adam at 3e-5, batch
# 200, 100,000 steps; the checkpoint chosen on val by CIDEr-D, the test
# split only via tools/test.py. Initialised from the newest checkpoint of
#   python tools/train.py configs/idc_pcl/idc-pcl-pretrain_resnet101_clevr-change.py
_base_ = [
    '../_base_/datasets/clevr_change.py',
    '../_base_/models/idc_pcl-captioner_resnet101.py',
    '../_base_/schedules/idc_pcl_finetune.py'
]
pretrain_work_dir = 'work_dirs/idc-pcl-pretrain_resnet101_clevr-change'
train_pipeline = [
    _base_.load_pair,
    dict(type='ResizePair', size=_base_.image_size),
    dict(type='TokenizeCaptions', context_length=40, mode='random'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(batch_size=200, dataset=dict(pipeline=train_pipeline))
model = dict(
    init_from='{pretrain_work_dir}/iter_*.pth',
    cross_modal=dict(vocab='{vocab_file}'))
