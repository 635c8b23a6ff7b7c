# IDC-PCL's pre-trainer as published (Yao et al., AAAI 2022): grid features
# of an ImageNet ResNet-101 (its last stage: 7x7x2048 at 224x224), fixed;
# width 512, 8 heads, F_sing and F_pair 1 layer each, F_cross 3 layers,
# dropout 0.2; tasks MLM : MVCL : FDA = 8 : 1 : 2, tau1 = tau2 = 1, MVCL
# against the predictions at unmasked positions
# (PredictedNegativeVisualContrastiveLoss), FDA on batch / (1 + K) pairs
# with their K negatives (SplitBatchDifferenceAlignmentLoss): the published
# code's settings.
# The backbone's weights come from MMPretrain's model zoo when the runner
# initialises the model; the image normalisation is ImageNet's.
resnet101_in1k = ('https://download.openmmlab.com/mmclassification/v0/'
                  'resnet/resnet101_8xb32_in1k_20210831-539c63f8.pth')
trunk = dict(
    hidden=512,
    data_preprocessor=dict(type='IDCDataPreprocessor',
                           mean=(123.675, 116.28, 103.53),
                           std=(58.395, 57.12, 57.375)),
    feature_encoder=dict(
        type='PairFeatureEncoder',
        backbone=dict(type='mmpretrain.ResNet', depth=101, out_indices=(3, ),
                      init_cfg=dict(type='Pretrained', checkpoint=resnet101_in1k,
                                    prefix='backbone.')),
        frozen=True, image_size=(224, 224)),
    token_embedding=dict(type='PairTokenEmbedding', dropout=0.2),
    single_image_encoder=dict(type='SingleImageEncoder', num_layers=1,
                              num_heads=8, dropout=0.2),
    pair_encoder=dict(type='PairEncoder', num_layers=1, num_heads=8,
                      dropout=0.2),
    cross_modal=dict(type='CrossModalTransformer', num_layers=3, num_heads=8,
                     dropout=0.2, max_length=40, vocab=None))
model = dict(
    type='IDCPCLPretrainer',
    **trunk,
    task_weights=dict(mlm=8, mvcl=1, fda=2),
    mvcl_loss=dict(type='PredictedNegativeVisualContrastiveLoss',
                   temperature=1.0),
    fda_loss=dict(type='SplitBatchDifferenceAlignmentLoss', temperature=1.0))
# a step trains one task: the other tasks' heads are unused in it
model_wrapper_cfg = dict(type='MMDistributedDataParallel',
                         find_unused_parameters=True)
