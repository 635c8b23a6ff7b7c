"""tools/analysis_tools/change_type_probe.py on the tiny runner tree."""
import importlib.util
import json
import os
import os.path as osp
import sys

import pytest

sys.path.insert(0, osp.dirname(__file__))
from tiny_run import REPO, write_tiny_config  # noqa: E402

TOOL = REPO / 'tools' / 'analysis_tools' / 'change_type_probe.py'


def load_tool():
    spec = importlib.util.spec_from_file_location('change_type_probe', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_probe_trains_backbone_of_config_and_reports_per_type(tmp_path):
    config = write_tiny_config(str(tmp_path), extra=(
        "model['backbone']['extra_segments'] = "
        "[dict(type='DifferenceSegment')]\n"))
    result = load_tool().main([
        config, '--steps', '3', '--batch-size', '4', '--threads', '1',
        '--cfg-options', 'model.backbone.num_inter_layers=2'])
    # the config's backbone, with the override
    assert result['segments'] == ('before', 'after', 'diff')
    assert result['num_inter_layers'] == 2
    assert result['final_loss'] > 0
    assert 0.0 <= result['val_accuracy'] <= 1.0
    assert result['per_type'] and set(result['per_type']) <= {
        'add', 'color', 'drop', 'material', 'move', 'none'}


def test_probe_max_readout(tmp_path):
    tool = load_tool()
    result = tool.main([write_tiny_config(str(tmp_path)), '--readout', 'max',
                        '--steps', '2', '--batch-size', '4', '--threads', '1'])
    assert result['final_loss'] > 0


def test_probe_predicts_an_attribute_of_the_changed_object(tmp_path):
    from mmidc.datasets.synthetic import generate_dataset
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
    assert 0.0 <= result['majority_accuracy'] <= 1.0
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
