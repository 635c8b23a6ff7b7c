"""The configs run under stock MMEngine and MMPretrain as they are: the
runtime base imports mmidc, makes its registries the default scope and
names its runner (``runner_type='mmidc.runtime.idc_runner.IDCRunner'``, which fills the
configs' ``'{data_root}'`` placeholders and sets their ``'auto'`` loader
settings for the machine), so that
``RUNNERS.build(Config.fromfile(cfg)).train()`` and MMPretrain's own
``tools/train.py`` (what ``mim train mmpretrain`` runs) train them. The
tiny config is the from-scratch project's: its ``custom_imports`` add
``projects.from_scratch`` after mmidc."""
import json
import os.path as osp
import subprocess
import sys
from pathlib import Path

import mmpretrain
import pytest
from mmengine.config import Config
from mmengine.registry import RUNNERS

from mmidc.runtime import loader_setup
from tests.helpers import CONFIG_FILES as CONFIGS
from tests.helpers import REPO
from tests.helpers.tiny_run import tool_env
from tests.helpers.tiny_synthetic_run import (TINY_CONFIG, cfg_options_args,
                                              make_tiny_synthetic,
                                              tiny_overrides)

CONFIG_ROOT = REPO / 'configs'
LOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')
#: A config whose loaders keep the data-set bases' defaults.
PAPER_CONFIG = CONFIG_ROOT / 'clip4idc' / 'clip4idc-caption_vit-b32_clevr-change.py'


@pytest.fixture(scope='module')
def tiny_root(tmp_path_factory):
    return make_tiny_synthetic(str(tmp_path_factory.mktemp('synthetic')))


def machine_loaders(path):
    """The config's loaders as its runner gets them."""
    cfg = Config.fromfile(path)
    loader_setup.resolve_loader_defaults(cfg)  # IDCRunner.from_cfg's
    return cfg


def test_loader_defaults_are_set_for_the_machine(monkeypatch):
    monkeypatch.setattr(loader_setup, 'available_cores', lambda: 5)
    monkeypatch.setattr(loader_setup, '_cuda_available', lambda: True)
    monkeypatch.delenv('LOCAL_WORLD_SIZE', raising=False)
    cfg = machine_loaders(PAPER_CONFIG)
    for key in LOADERS:
        assert cfg[key].num_workers == 4  # 5 cores, one left to the trainer
        assert cfg[key].pin_memory is True
    monkeypatch.setattr(loader_setup, '_cuda_available', lambda: False)
    monkeypatch.setenv('LOCAL_WORLD_SIZE', '2')  # torchrun, 2 processes
    cfg = machine_loaders(PAPER_CONFIG)
    assert cfg.train_dataloader.num_workers == 1
    assert cfg.train_dataloader.pin_memory is False


@pytest.mark.parametrize('path', CONFIGS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_config_gives_the_runner_numbers(path):
    cfg = machine_loaders(path)
    for key in LOADERS:
        loader = cfg.get(key)
        if not loader:
            continue
        assert isinstance(loader.num_workers, int), (key, loader.num_workers)
        assert isinstance(loader.get('pin_memory', False), bool), key
    assert cfg.default_scope == 'mmidc'
    assert cfg.runner_type == 'mmidc.runtime.idc_runner.IDCRunner'
    assert 'mmidc' in cfg.custom_imports['imports']
    assert cfg.custom_imports.get('allow_failed_imports', False) is False


def _check_run(work_dir: Path):
    scalars = sorted(work_dir.glob('*/vis_data/scalars.json'))
    assert scalars, f'no scalars.json under {work_dir}'
    records = [json.loads(line) for line in scalars[-1].read_text().splitlines()]
    assert any('loss' in r for r in records)
    assert any('rsum' in r for r in records)  # validated
    assert (work_dir / 'epoch_1.pth').is_file()


def test_runner_from_cfg_trains_the_tiny_config(tmp_path, tiny_root,
                                                one_thread, mmengine_on_cpu):
    cfg = Config.fromfile(REPO / TINY_CONFIG)
    cfg.merge_from_dict(tiny_overrides(tiny_root))
    cfg.work_dir = str(tmp_path / 'work')
    RUNNERS.build(cfg).train()  # what MMPretrain's tools do
    _check_run(tmp_path / 'work')


def test_mmpretrain_train_tool_trains_the_tiny_config(tmp_path, tiny_root):
    """MMPretrain's stock tools/train.py (shipped in its package for mim),
    run outside the repo: it imports nothing of mmidc itself."""
    tool = osp.join(osp.dirname(mmpretrain.__file__), '.mim', 'tools', 'train.py')
    if not osp.isfile(tool):
        pytest.skip(f'this mmpretrain install ships no {tool}')
    work = tmp_path / 'work'
    cmd = [sys.executable, tool, str(REPO / TINY_CONFIG), '--work-dir',
           str(work), *cfg_options_args(tiny_overrides(tiny_root))]
    result = subprocess.run(cmd, cwd=str(tmp_path), env=tool_env(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    _check_run(work)
