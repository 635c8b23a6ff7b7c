# IDC-PCL fine-tuning on Birds-to-Words (published settings: F_cross of 2
# layers, 80 caption tokens, Adam at 3e-5 with weight decay 1e-4, batch
# 128, 20,000 steps). Main metric ROUGE-L: the checkpoint is chosen on val
# by ROUGE-L (CIDEr-D is reported beside it). No distractor judge: the data
# set has no no-change pairs. Initialised from the newest checkpoint of
#   python tools/train.py configs/idc_pcl/idc-pcl-pretrain_resnet101_birds-to-words.py
_base_ = [
    '../_base_/datasets/birds_to_words.py',
    '../_base_/models/idc_pcl-captioner_resnet101.py',
    '../_base_/schedules/idc_pcl_finetune.py'
]
data_root = 'data/birds_to_words'
pretrain_work_dir = 'work_dirs/idc-pcl-pretrain_resnet101_birds-to-words'
train_dataloader = dict(batch_size=128, dataset=dict(data_root='{data_root}'))
model = dict(
    init_from='{pretrain_work_dir}/iter_*.pth',
    distractor_loss=None,
    cross_modal=dict(num_layers=2, max_length=80, vocab='{vocab_file}'))
optim_wrapper = dict(optimizer=dict(weight_decay=1e-4))
max_iters = 20000
train_cfg = dict(max_iters=max_iters, val_interval=500)
default_hooks = dict(checkpoint=dict(interval=500, save_best='ROUGE_L'))
