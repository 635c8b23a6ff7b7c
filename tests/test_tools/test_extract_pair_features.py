"""tools/dataset_converters/extract_pair_features.py (run in-process) and
reading its cache: LoadPairFeatures + PackIDCInputs + PairFeaturePreprocessor
+ PairFeatureEncoder(backbone=None) give the backbone's own features."""
import os.path as osp

import pytest
import torch
from mmengine.registry import init_default_scope

from tests.helpers import load_tool
from tests.helpers.tiny_run import make_tiny_data

CONFIG = """
default_scope = 'mmidc'
data_root = {data_root!r}
pipeline = [dict(type='LoadImagePair'), dict(type='ResizePair', size=(32, 48)),
            dict(type='PackIDCInputs')]
train_dataloader = dict(dataset=dict(type='CLEVRChangeDataset',
                                     data_root=data_root, split='train',
                                     pipeline=pipeline))
test_dataloader = dict(dataset=dict(type='CLEVRChangeDataset',
                                    data_root=data_root, split='test',
                                    pipeline=pipeline))
model = dict(
    type='IDCPCLCaptioner', hidden=32,
    feature_encoder=dict(
        type='PairFeatureEncoder', image_size=(32, 48), frozen=True,
        backbone=dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                      base_channels=8, num_stages=3, strides=(1, 2, 2),
                      dilations=(1, 1, 1), out_indices=(2, ))),
    cross_modal=dict(type='CrossModalTransformer', num_heads=2, vocab=None))
"""


@pytest.fixture(scope='module')
def tool():
    return load_tool('tools/dataset_converters/extract_pair_features.py')


def test_extracted_features_equal_the_backbone_on_the_fly(tool, tmp_path):
    init_default_scope('mmidc')
    from mmidc.registry import MODELS, TRANSFORMS
    data_root = make_tiny_data(str(tmp_path / 'data'))
    config = tmp_path / 'extract.py'
    config.write_text(CONFIG.format(data_root=data_root))
    # a trained feature encoder, saved as an IDC-PCL checkpoint
    encoder = MODELS.build(dict(
        type='PairFeatureEncoder', image_size=(32, 48),
        backbone=dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                      base_channels=8, num_stages=3, strides=(1, 2, 2),
                      dilations=(1, 1, 1), out_indices=(2, ))))
    encoder.init_weights()
    checkpoint = tmp_path / 'model.pth'
    torch.save(dict(state_dict={f'feature_encoder.{k}': v for k, v in
                                encoder.state_dict().items()}), checkpoint)
    cache_dir = str(tmp_path / 'features')
    assert tool.main([str(config), '--cache-dir', cache_dir, '--checkpoint',
                      str(checkpoint), '--device', 'cpu',
                      '--batch-size', '5']) == 0
    assert osp.isfile(osp.join(cache_dir, 'CLEVRChangeDataset_train.json'))

    image_steps = [TRANSFORMS.build(t) for t in (
        dict(type='LoadImagePair'), dict(type='ResizePair', size=(32, 48)),
        dict(type='PackIDCInputs'))]
    feature_steps = [TRANSFORMS.build(t) for t in (
        dict(type='LoadPairFeatures', cache_dir=cache_dir),
        dict(type='PackIDCInputs'))]
    sample = dict(img1_path=osp.join(data_root, 'images', 'CLEVR_default_000010.png'),
                  img2_path=osp.join(data_root, 'sc_images', 'CLEVR_semantic_000010.png'),
                  pair_id='000010.png', change_type='color', gt_captions=['x'])

    def run(steps):
        results = dict(sample)
        for step in steps:
            results = step(results)
        return results

    images = run(image_steps)
    cached = run(feature_steps)
    assert cached['inputs'].shape == (2, 32, 2, 3)  # [2, C, h, w]
    on_the_fly = MODELS.build(dict(type='IDCDataPreprocessor'))(
        dict(inputs=[images['inputs']]))['inputs']
    encoder.eval()
    with torch.no_grad():
        expected = encoder(on_the_fly)  # [1, 2, N, C]
    reader = MODELS.build(dict(type='PairFeatureEncoder', backbone=None,
                               feature_dim=32, num_tokens=6))
    features = MODELS.build(dict(type='PairFeaturePreprocessor'))(
        dict(inputs=[cached['inputs']]))['inputs']
    torch.testing.assert_close(reader(features), expected, atol=2e-2, rtol=1e-2)

    missing = dict(sample, img1_path=osp.join(data_root, 'nowhere.png'))
    with pytest.raises(KeyError, match='nowhere.png'):
        feature_steps[0](missing)


def test_a_config_without_a_feature_encoder_is_named(tool, tmp_path):
    """A CLIP4IDC config (no model.feature_encoder): the error names the
    config and the kind of config the tool reads."""
    config = tmp_path / 'clip4idc.py'
    config.write_text("model = dict(type='CLIP4IDCCaptioner', backbone=dict())\n")
    with pytest.raises(SystemExit, match=r'clip4idc.py: model \(CLIP4IDCCaptioner\) has no '
                       'feature_encoder.*IDC-PCL config'):
        tool.main([str(config), '--cache-dir', str(tmp_path / 'f'), '--device', 'cpu'])


def test_a_loader_without_the_image_steps_is_named(tool, tmp_path):
    """A ConcatDataset (its parts carry the pipelines) or a pipeline without
    LoadImagePair and ResizePair: the error names the config, the loader and
    the data set."""
    config = tmp_path / 'concat.py'
    config.write_text(CONFIG.format(data_root=str(tmp_path)) + (
        "train_dataloader = dict(dataset=dict(type='ConcatDataset', datasets=[\n"
        "    dict(type='CLEVRChangeDataset', data_root=data_root, pipeline=pipeline)]))\n"))
    with pytest.raises(ValueError, match=r'concat.py: train_dataloader.dataset '
                       r'\(ConcatDataset\) has no LoadImagePair and ResizePair'):
        tool.main([str(config), '--cache-dir', str(tmp_path / 'f'), '--device', 'cpu'])
