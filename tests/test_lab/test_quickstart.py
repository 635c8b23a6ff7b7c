"""mmidc_lab.quickstart: its command line reaches the pipeline (which
tests/test_lab/test_experiments/test_quickstart.py runs with the commands
recorded), and a pipeline error ends it with its message."""
import os

import pytest

from mmidc_lab import quickstart
from mmidc_lab.experiments import ExperimentError


@pytest.fixture
def tool(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    return quickstart


def test_options_reach_the_pipeline(tool, monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(tool, 'run_quickstart',
                        lambda *args, **kwargs: calls.append((args, kwargs)))
    tool.main(['--work-dir', 'w', '--num-scenes', '10', '--caption-options',
               'a=1', 'b=2', '--no-shifted', '--show', '0'])
    # it runs where it is started (the clone's root): no change of folder
    assert os.getcwd() == str(tmp_path)
    tool.main([])  # the path val chose, unless told otherwise
    assert calls.pop()[1]['tiny_clip'] is False
    tool.main(['--tiny-clip'])
    assert calls.pop()[1]['tiny_clip'] is True
    (args, kwargs), = calls
    assert args == ('w', 10, 2, tool.CAPTION_CFG, [], ['a=1', 'b=2'])
    assert kwargs == dict(shifted=False, show=0, tiny_clip=False)


def test_a_pipeline_error_ends_the_command(tool, monkeypatch):
    def fail(*args, **kwargs):
        raise ExperimentError('w holds a finished run of another config')

    monkeypatch.setattr(tool, 'run_quickstart', fail)
    with pytest.raises(SystemExit, match='another config'):
        tool.main([])
