# IDC-PCL fine-tuning without the image difference encoder, initialised from
#   python tools/train.py configs/idc_pcl/idc-pcl-nodiffenc-pretrain_tiny_synthetic-clevr-change.py
_base_ = ['./idc-pcl-caption_tiny_synthetic-clevr-change.py']
pretrain_work_dir = 'work_dirs/idc-pcl-nodiffenc-pretrain_tiny_synthetic-clevr-change'
model = dict(single_image_encoder=None, pair_encoder=None,
             init_from='{pretrain_work_dir}/epoch_*.pth')
