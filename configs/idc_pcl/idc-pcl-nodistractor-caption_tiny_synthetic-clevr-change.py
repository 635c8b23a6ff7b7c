# IDC-PCL fine-tuning without the distractor judge (the paper's "w/o
# distractor judging" row): the full recipe's pre-training, then fine-tuning
# with the caption loss only. Initialised from the last checkpoint of
#   python tools/train.py configs/idc_pcl/idc-pcl-pretrain_tiny_synthetic-clevr-change.py
_base_ = ['./idc-pcl-caption_tiny_synthetic-clevr-change.py']
model = dict(distractor_loss=None)
