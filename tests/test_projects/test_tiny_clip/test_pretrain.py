"""python -m projects.tiny_clip.pretrain: its options become the run's
settings, and a pipeline error ends it with its message (the pre-training:
test_pretraining.py)."""
import pytest

from projects.tiny_clip import TinyCLIPError
from projects.tiny_clip import pretrain as tool
from projects.tiny_clip.pretraining import PretrainSettings


def test_options_and_errors(monkeypatch):
    assert tool.parse_args([]) == PretrainSettings()
    assert tool.parse_args(['--epochs', '8', '--name', 'n']) == \
        PretrainSettings(epochs=8, name='n')
    runs = []
    monkeypatch.setattr(tool, 'pretrain', lambda s: runs.append(s) or 'x')
    assert tool.main(['--lr', '0.01']) == 'x' and runs[0].lr == 0.01

    def fail(settings):
        raise TinyCLIPError('open_clip_train failed')

    monkeypatch.setattr(tool, 'pretrain', fail)
    with pytest.raises(SystemExit, match='open_clip_train failed'):
        tool.main([])
