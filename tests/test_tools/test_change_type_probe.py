"""tools/analysis_tools/change_type_probe.py on the tiny runner tree."""
import importlib.util
import os.path as osp
import sys

sys.path.insert(0, osp.dirname(__file__))
from tiny_run import REPO, write_tiny_config  # noqa: E402

TOOL = REPO / 'tools' / 'analysis_tools' / 'change_type_probe.py'


def load_tool():
    spec = importlib.util.spec_from_file_location('change_type_probe', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_probe_trains_backbone_of_config_and_reports_per_type(tmp_path):
    config = write_tiny_config(str(tmp_path))
    result = load_tool().main([
        config, '--steps', '3', '--batch-size', '4', '--threads', '1',
        '--cfg-options', 'model.backbone.difference_tokens=True'])
    assert result['num_segments'] == 3  # the override reached the backbone
    assert result['final_loss'] > 0
    assert 0.0 <= result['val_accuracy'] <= 1.0
    assert result['per_type'] and set(result['per_type']) <= {
        'add', 'color', 'drop', 'material', 'move', 'none'}
