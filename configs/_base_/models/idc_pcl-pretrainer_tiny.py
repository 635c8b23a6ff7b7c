# IDC-PCL's pre-trainer at a CPU size, trained from scratch (no pretrained
# weights): MMPretrain's ResNet-18 cut to 3 stages of 16/32/64 channels as
# the image feature encoder (stride 16: a 6x9 grid of 64-dim features on
# 96x144 images, trained with the rest), width 128, 4 heads, F_sing and
# F_pair 1 layer each, F_cross 2 layers, no dropout. Tasks drawn per step
# in the published ratio MLM : MVCL : FDA = 8 : 1 : 2, with the published
# code's tau2 = 1, MVCL negatives (PredictedNegativeVisualContrastiveLoss)
# and FDA batch (SplitBatchDifferenceAlignmentLoss). MVCL's tau1 is 0.1,
# not the published 1: at tau1 = 1 this model trained from scratch does not
# learn MVCL (top-1 of a masked position among its batch's 0.4% after 100
# steps; 13.3% at 0.1 -- "Does MVCL learn?" in docs/idc_pcl.md).
# The features carry the difference of the two images at each position
# (DifferenceFeatureEncoder): with plain features trained from scratch the
# captioner never told change pairs from no-change pairs in the tiny
# schedule (val CIDEr-D 64.7, every change pair captioned as no change;
# docs/idc_pcl.md).
tiny_feature_encoder = dict(
    type='DifferenceFeatureEncoder',
    backbone=dict(type='mmpretrain.ResNet', depth=18, stem_channels=16,
                  base_channels=16, num_stages=3, strides=(1, 2, 2),
                  dilations=(1, 1, 1), out_indices=(2, )),
    image_size=(96, 144))
tiny_trunk = dict(
    hidden=128,
    feature_encoder=tiny_feature_encoder,
    token_embedding=dict(type='PairTokenEmbedding'),
    single_image_encoder=dict(type='SingleImageEncoder', num_layers=1,
                              num_heads=4),
    pair_encoder=dict(type='PairEncoder', num_layers=1, num_heads=4),
    cross_modal=dict(type='CrossModalTransformer', num_layers=2, num_heads=4,
                     max_length=32, vocab=None))
model = dict(
    type='IDCPCLPretrainer',
    **tiny_trunk,
    task_weights=dict(mlm=8, mvcl=1, fda=2),
    mlm_mask_prob=0.15,
    mvcl_mask_prob=0.15,
    mvcl_loss=dict(type='PredictedNegativeVisualContrastiveLoss',
                   temperature=0.1),
    fda_loss=dict(type='SplitBatchDifferenceAlignmentLoss', temperature=1.0))
