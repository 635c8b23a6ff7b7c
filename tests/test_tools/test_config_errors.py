"""Broken configs fail before the first training step, naming the culprit."""
import os.path as osp

import pytest
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.runner import Runner

import mmidc  # noqa: F401
from mmidc.runtime.config_check import check_config
from tests.helpers.tiny_run import run_train, write_tiny_config


class StepCounter(Hook):
    """Counts training iterations that started."""

    def __init__(self):
        self.steps = 0

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        self.steps += 1


def train_in_process(config: str, work_dir: str) -> StepCounter:
    cfg = Config.fromfile(config)
    cfg.work_dir = work_dir
    cfg.experiment_name = osp.basename(work_dir)
    check_config(cfg)
    counter = StepCounter()
    try:
        runner = Runner.from_cfg(cfg)
        runner.register_hook(counter)
        runner.train()
    finally:
        assert counter.steps == 0
    return counter


@pytest.mark.parametrize('extra, error, names', [
    # unknown type, built with the runner (model)
    ("model.update(head=dict(type='ContrastiveAdaptationHed'))\n",
     KeyError, 'ContrastiveAdaptationHed'),
    # unknown type, built when training starts (data pipeline)
    ("train_pipeline[1]['type'] = 'ResizePiar'\n", KeyError, 'ResizePiar'),
    # unknown constructor key
    ("model['backbone']['num_inter_layer'] = 1\n", TypeError,
     'num_inter_layer'),
    ("train_dataloader['dataset']['with_nochange'] = False\n", TypeError,
     'with_nochange'),
], ids=['model-type', 'transform-type', 'model-key', 'dataset-key'])
def test_bad_component_fails_before_training(tmp_path, extra, error, names):
    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=extra)
    with pytest.raises(error, match=names):
        train_in_process(config, str(tmp_path / 'work'))
    assert not list((tmp_path / 'work').rglob('*.pth'))


def test_misspelt_top_level_key_fails_check_config(tmp_path):
    config = write_tiny_config(
        str(tmp_path), max_epochs=1,
        extra='train_dataloder = train_dataloader\n')
    with pytest.raises(KeyError, match="'train_dataloder'.*'train_dataloader'"):
        check_config(Config.fromfile(config))


def test_train_tool_reports_unknown_type(tmp_path):
    """The command line: non-zero exit, the message names the type, no
    checkpoint."""
    config = write_tiny_config(
        str(tmp_path), max_epochs=1,
        extra="model.update(type='CLIP4IDCRetreiver')\n")
    work_dir = str(tmp_path / 'work')
    result = run_train(config, '--work-dir', work_dir)
    assert result.returncode != 0
    assert 'CLIP4IDCRetreiver' in result.stderr
    assert not list((tmp_path / 'work').rglob('*.pth'))
