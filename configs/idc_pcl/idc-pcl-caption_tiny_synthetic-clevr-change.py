# IDC-PCL fine-tuning at a CPU size on the synthetic CLEVR-Change-style set
# (change and no-change pairs), initialised from the last checkpoint of
#   python tools/train.py configs/idc_pcl/idc-pcl-pretrain_tiny_synthetic-clevr-change.py
# (set model.init_from=None to fine-tune from random weights). Checkpoint
# chosen on val by CIDEr-D; the test split only via tools/test.py.
_base_ = [
    '../_base_/datasets/synthetic_clevr_change_96x144.py',
    '../_base_/models/idc_pcl-captioner_tiny.py',
    '../_base_/schedules/tiny_from_scratch.py', '../_base_/default_runtime.py'
]
pretrain_work_dir = 'work_dirs/idc-pcl-pretrain_tiny_synthetic-clevr-change'
model = dict(
    # 70% of the caption masked (UniLM's sequence-to-sequence rate; the
    # published IDC-PCL fine-tuning masks 15%): picked on val, one epoch
    # from random weights each, val CIDEr-D 23.1 / 24.0 / 30.6 at
    # 0.15 / 0.4 / 0.7.
    mask_prob=0.7,
    # the newest match of the pattern, read when the runner initialises
    # the weights (relative to the working directory)
    init_from='{pretrain_work_dir}/epoch_*.pth',
    cross_modal=dict(vocab='{vocab_file}'))
# Batch 16 and lr 1e-3 for 5 epochs: the tiny CLIP4IDC captioner's settings
# (1,500 steps).
train_dataloader = dict(batch_size=16)
optim_wrapper = dict(optimizer=dict(lr=1e-3))
default_hooks = dict(checkpoint=dict(save_best='CIDEr', rule='greater'),
                     logger=dict(interval=10))
