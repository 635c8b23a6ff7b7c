# IDC-PCL pre-training without the image difference encoder (the published
# ablation "w/o DE"): no F_sing and no F_pair, the image tokens go straight
# into F_cross. Otherwise as idc-pcl-pretrain_tiny_synthetic-clevr-change.py.
_base_ = ['./idc-pcl-pretrain_tiny_synthetic-clevr-change.py']
model = dict(single_image_encoder=None, pair_encoder=None)
