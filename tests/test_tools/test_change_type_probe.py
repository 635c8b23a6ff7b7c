"""tools/analysis_tools/change_type_probe.py on the tiny runner tree."""
import json
import os

import pytest

from tests.helpers import load_tool as _load_tool
from tests.helpers.tiny_run import write_tiny_config


def load_tool():
    return _load_tool('tools/analysis_tools/change_type_probe.py')


def test_probe_trains_backbone_of_config_and_reports_per_type(tmp_path):
    config = write_tiny_config(str(tmp_path), extra=(
        "custom_imports = dict(imports=['mmidc', 'projects.from_scratch'])\n"
        "model['backbone']['extra_segments'] = "
        "[dict(type='DifferenceSegment')]\n"))
    result = load_tool().main([
        config, '--steps', '3', '--batch-size', '4', '--threads', '1',
        '--cfg-options', 'model.backbone.num_inter_layers=2'])
    # the config's backbone, with the override
    assert result['segments'] == ('before', 'after', 'diff')
    assert result['num_inter_layers'] == 2
    # The tiny tree's val split, by hand (tests/helpers/pair_trees.py: scene
    # s has change type CLEVR_TYPES[s % 5]): scene 8 'drop', scene 9 'move',
    # and their two no-change pairs.
    per_type = result['per_type']
    assert set(per_type) == {'drop', 'move', 'none'}
    assert result['val_accuracy'] == pytest.approx(
        (per_type['drop'] + per_type['move'] + 2 * per_type['none']) / 4,
        abs=1e-3)
    # train: 8 change pairs of 5 types + 8 no-change pairs: 'none' is the
    # majority class, and half of the val pairs are no-change pairs
    assert result['majority_accuracy'] == 0.5


def test_probe_max_readout(tmp_path):
    tool = load_tool()
    result = tool.main([write_tiny_config(str(tmp_path)), '--readout', 'max',
                        '--steps', '2', '--batch-size', '4', '--threads', '1'])
    assert len(result['segments']) == 2 and set(result['per_type']) == {
        'drop', 'move', 'none'}


def test_probe_predicts_an_attribute_of_the_changed_object(tmp_path):
    from mmidc.synthetic import generate_dataset
    root = str(tmp_path / 'synthetic')
    generate_dataset(root, 20, seed=3, image_size=(48, 32), progress=False)
    config = write_tiny_config(str(tmp_path))
    on_root = ['--cfg-options', f'train_dataloader.dataset.data_root={root}',
               f'val_dataloader.dataset.data_root={root}']
    tool = load_tool()
    result = tool.main([config, '--target', 'color', '--steps', '2',
                        '--batch-size', '4', '--threads', '1', *on_root])
    # classes are colour names, and only change pairs are probed
    assert set(result['per_type']) <= {'blue', 'brown', 'cyan', 'gray',
                                       'green', 'purple', 'red', 'yellow'}
    with open(f'{root}/scenes/CLEVR_default_000000.json') as f:
        scene = json.load(f)
    expected_view = 'semantic' if scene['change']['type'] == 'add' \
        else 'default'
    obj = [o for o in scene['images'][expected_view]['objects']
           if o['id'] == scene['change']['object_id']][0]
    assert tool.changed_object_attribute(
        root, 'images/CLEVR_default_000000.png', 'shape') == obj['shape']
    os.remove(f'{root}/scenes/CLEVR_default_000000.json')
    with pytest.raises(FileNotFoundError, match='CLEVR_default_000000.json'):
        tool.main([config, '--target', 'color', '--steps', '1', *on_root])


def test_a_config_the_probe_cannot_read_is_named(tmp_path):
    """An IDC-PCL config (no model.backbone) and a pre-training config (no
    val loader): each error names the config and what it lacks."""
    idc_pcl = tmp_path / 'idc_pcl.py'
    idc_pcl.write_text("model = dict(type='IDCPCLCaptioner', feature_encoder=dict())\n"
                       "train_dataloader = dict(dataset=dict())\n"
                       "val_dataloader = dict(dataset=dict())\n")
    with pytest.raises(SystemExit, match=r'idc_pcl.py: model \(IDCPCLCaptioner\) has no '
                       'backbone.*CLIP4IDC'):
        load_tool().main([str(idc_pcl), '--steps', '1'])
    pretrain = tmp_path / 'pretrain.py'
    pretrain.write_text("model = dict(type='CLIP4IDCRetriever', backbone=dict(type='X'))\n"
                        "train_dataloader = dict(dataset=dict())\nval_dataloader = None\n")
    with pytest.raises(SystemExit, match=r'pretrain.py: no val_dataloader'):
        load_tool().main([str(pretrain), '--steps', '1'])


def test_the_probe_draws_no_caption(tmp_path, monkeypatch):
    """The probe reads images only: no caption step runs, so no warning about
    the random draws of a caption sampler (meant for training runs)."""
    config = write_tiny_config(str(tmp_path), extra=(
        "custom_imports = dict(imports=['mmidc', 'projects.from_scratch'])\n"))
    from mmidc.datasets.transforms import tokenize_captions
    monkeypatch.setattr(tokenize_captions.TokenizeCaptions, 'transform',
                        lambda self, results: pytest.fail('a caption was drawn'))
    load_tool().main([config, '--steps', '1', '--batch-size', '2', '--threads', '1'])
