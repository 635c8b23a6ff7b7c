"""tools/pretrain_tiny_clip.py: its options become the run's settings, and a
pipeline error ends it with its message (the pre-training:
tests/test_experiments/test_tiny_clip_pretraining.py)."""
import pytest

from mmidc.experiments import ExperimentError
from mmidc.experiments.tiny_clip_pretraining import PretrainSettings
from tests.helpers import load_tool


def test_options_and_errors(monkeypatch):
    tool = load_tool('tools/pretrain_tiny_clip.py')
    assert tool.parse_args([]) == PretrainSettings()
    assert tool.parse_args(['--epochs', '8', '--name', 'n']) == \
        PretrainSettings(epochs=8, name='n')
    runs = []
    monkeypatch.setattr(tool, 'pretrain', lambda s: runs.append(s) or 'x')
    assert tool.main(['--lr', '0.01']) == 'x' and runs[0].lr == 0.01

    def fail(settings):
        raise ExperimentError('open_clip_train failed')

    monkeypatch.setattr(tool, 'pretrain', fail)
    with pytest.raises(SystemExit, match='open_clip_train failed'):
        tool.main([])
