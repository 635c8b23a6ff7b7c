# CLEVR-Change read as cached grid features of the frozen ImageNet
# ResNet-101 (7x7x2048 per image at 224x224) instead of images, as IDC-PCL
# was published. Write the cache once with
#   python tools/dataset_converters/extract_pair_features.py \
#       configs/idc_pcl/idc-pcl-caption_resnet101_clevr-change.py \
#       --cache-dir data/clevr_change/features_resnet101_224
# Models reading it: data_preprocessor PairFeaturePreprocessor and a
# PairFeatureEncoder without backbone (feature_dim 2048, num_tokens 49).
_base_ = ['./clevr_change.py']
data_root = 'data/clevr_change'
feature_dir = '{data_root}/features_resnet101_224'
load_features = dict(type='LoadPairFeatures', cache_dir=feature_dir)
train_pipeline = [
    load_features,
    dict(type='TokenizeCaptions', context_length=40, mode='random'),
    dict(type='PackIDCInputs'),
]
test_pipeline = [load_features, dict(type='PackIDCInputs')]
train_dataloader = dict(dataset=dict(pipeline=train_pipeline))
val_dataloader = dict(dataset=dict(pipeline=test_pipeline))
test_dataloader = dict(dataset=dict(pipeline=test_pipeline))
cached_features = dict(
    data_preprocessor=dict(_delete_=True, type='PairFeaturePreprocessor'),
    feature_encoder=dict(_delete_=True, type='PairFeatureEncoder',
                         backbone=None, feature_dim=2048, num_tokens=49))
