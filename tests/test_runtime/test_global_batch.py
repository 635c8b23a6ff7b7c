"""The global batch of a run against its config's base batch."""
import pytest
from mmengine.config import Config

import mmidc.runtime.global_batch as module
from mmidc.runtime.global_batch import global_batch, log_global_batch
from tests.helpers import REPO
from tests.helpers.tiny_run import train_main, write_tiny_config

ADAPT = 'configs/clip4idc/clip4idc-adapt_vit-b32_clevr-change.py'
CAPTION = 'configs/clip4idc/clip4idc-caption_vit-b32_clevr-change.py'


@pytest.fixture
def logged(monkeypatch):
    seen = []
    monkeypatch.setattr(
        module, 'print_log',
        lambda msg, level=20, **kwargs: seen.append((level, msg)))
    return seen


def warnings_in(logged):
    return [msg for level, msg in logged if level >= 30]


def test_paper_adaptation_on_8_gpus_warns(logged):
    info = log_global_batch(Config.fromfile(REPO / ADAPT), world_size=8)
    assert info['global_batch'] == 1024 and info['base'] == 128
    assert 'Global batch: 8 processes x 128' in logged[0][1]
    (warning, ) = warnings_in(logged)
    assert 'The global batch 1024' in warning and 'base batch 128' in warning
    assert 'train_dataloader.batch_size=16' in warning
    assert 'auto_scale_lr.enable=True' in warning


@pytest.mark.parametrize('config, world_size, batch', [
    (ADAPT, 1, 128), (ADAPT, 8, 16), (CAPTION, 1, 32), (CAPTION, 4, 8)])
def test_paper_batch_kept_is_quiet(logged, config, world_size, batch):
    cfg = Config.fromfile(REPO / config)
    cfg.train_dataloader.batch_size = batch
    info = log_global_batch(cfg, world_size)
    assert info['global_batch'] == info['base']
    assert warnings_in(logged) == []


def test_paired_captioning_base_counts_pairs():
    """The CLEVR-Change captioner's batch of 16 scenes is 32 pairs, the
    number MMEngine's auto_scale_lr compares with its base."""
    cfg = Config.fromfile(REPO / CAPTION)
    assert cfg.train_dataloader.batch_size == cfg.auto_scale_lr.base_batch_size


def test_scaling_asked_for_is_not_a_warning(logged):
    cfg = Config.fromfile(REPO / ADAPT)
    cfg.auto_scale_lr.enable = True
    log_global_batch(cfg, 8)
    assert warnings_in(logged) == []
    assert any('auto_scale_lr is enabled' in msg for _, msg in logged)


def test_accumulation_counts(logged):
    cfg = Config.fromfile(REPO / ADAPT)
    cfg.train_dataloader.batch_size = 32
    cfg.optim_wrapper.accumulative_counts = 2
    assert log_global_batch(cfg, 2)['global_batch'] == 128
    assert warnings_in(logged) == []


def test_without_auto_scale_lr_the_base_is_one_process():
    cfg = Config(dict(train_dataloader=dict(batch_size=200)))
    assert global_batch(cfg, 1)['base'] == 200
    assert global_batch(cfg, 2)['global_batch'] == 400
    assert global_batch(Config(dict(train_dataloader=None)), 2) is None


def test_indivisible_base_names_no_batch(logged):
    cfg = Config(dict(train_dataloader=dict(batch_size=150)))
    log_global_batch(cfg, 8)
    (warning, ) = warnings_in(logged)
    assert 'batch_size=' not in warning and 'divides 150' in warning


def test_train_tool_logs_it(tmp_path):
    """The command's main (in this process) logs it to the run's log."""
    config = write_tiny_config(str(tmp_path), max_epochs=1)
    train_main(config, '--work-dir', str(tmp_path / 'work'),
               '--cfg-options', 'auto_scale_lr.base_batch_size=16')
    (log, ) = (tmp_path / 'work').rglob('*.log')
    output = log.read_text()
    assert 'Global batch: 1 process x 4 (train_dataloader.batch_size) = 4' \
        in output
    assert 'The global batch 4 is not the config\'s base batch 16' in output


def test_every_shipped_config_keeps_its_base_batch_on_one_process():
    """A config whose own batch is not its auto_scale_lr base would warn on
    one GPU (and auto_scale_lr would rescale it there)."""
    paths = sorted([*(REPO / 'configs').glob('*/*.py'),
                    *(REPO / 'projects').glob('*/configs/*.py')])
    assert paths
    for path in paths:
        info = global_batch(Config.fromfile(str(path)), 1)
        if info is not None:
            assert info['global_batch'] == info['base'], path.name
