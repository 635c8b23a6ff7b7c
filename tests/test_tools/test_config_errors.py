"""Broken configs fail before the first training step, naming the culprit."""
import os.path as osp
import subprocess
import sys
import uuid

import pytest
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.runner import Runner

import mmidc  # noqa: F401
from mmidc.runtime.config_check import check_config
from tests.helpers import REPO
from tests.helpers.tiny_run import (run_train, tool_env, train_main,
                                    write_tiny_config)


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
    """The command's main (in this process; its command line as a
    subprocess: test_train_tool_names_the_key_that_lost_its_type): an error
    that names the type, no checkpoint."""
    config = write_tiny_config(
        str(tmp_path), max_epochs=1,
        extra="model.update(type='CLIP4IDCRetreiver')\n")
    work_dir = str(tmp_path / 'work')
    with pytest.raises(Exception, match='CLIP4IDCRetreiver'):
        train_main(config, '--work-dir', work_dir)
    assert not list((tmp_path / 'work').rglob('*.pth'))


# -- a misused _delete_ --------------------------------------------------------
def write_child(folder, base: str, text: str, name: str = 'child.py') -> str:
    """A config file in ``folder`` inheriting ``base``, plus ``text``."""
    path = osp.join(str(folder), name)
    with open(path, 'w') as f:
        f.write(f'_base_ = [{base!r}]\n' + text)
    return path


@pytest.mark.parametrize('text, names', [
    ("model = dict(head=dict(_delete_=True, temperature=0.05))\n",
     ['model.head', 'ContrastiveAdaptationHead', '_delete_']),
    ('train_dataloader = dict(_delete_=True, batch_size=4)\n',
     ['train_dataloader has no dataset', '_delete_']),
    ("val_dataloader = dict(dataset=dict(_delete_=True, split='test'))\n",
     ['val_dataloader.dataset', 'CLEVRChangeDataset']),
    ('default_hooks = dict(checkpoint=dict(_delete_=True, interval=2))\n',
     ['default_hooks.checkpoint', 'type']),
    ("model = dict(_delete_=True, backbone=dict(type='CLIP4IDCBackbone'))\n",
     ['model has no "type"']),
], ids=['head', 'loader', 'dataset', 'hook', 'model'])
def test_a_key_that_lost_its_type_is_named(tmp_path, text, names):
    """``_delete_=True`` without the type (or a loader's data set) fails
    the config check, naming the key, not with ``KeyError: 'type'`` when
    the runner builds it."""
    base = write_tiny_config(str(tmp_path), max_epochs=1)
    cfg = Config.fromfile(write_child(tmp_path, base, text))
    with pytest.raises(ValueError) as err:
        check_config(cfg)
    for name in names:
        assert name in str(err.value)


def test_delete_with_a_type_and_plain_settings_pass(tmp_path):
    """A full replacement keeps passing, and so do settings MMEngine gives
    a default type (the optimizer wrapper, the loops)."""
    base = write_tiny_config(str(tmp_path), max_epochs=1)
    check_config(Config.fromfile(write_child(tmp_path, base, (
        "model = dict(head=dict(_delete_=True, "
        "type='ContrastiveAdaptationHead'))\n"
        "optim_wrapper = dict(_delete_=True, optimizer=dict(type='SGD', "
        "lr=0.1))\n"
        'train_cfg = dict(_delete_=True, by_epoch=True, max_epochs=1)\n'))))


def test_train_tool_names_the_key_that_lost_its_type(tmp_path):
    base = write_tiny_config(str(tmp_path), max_epochs=1)
    child = write_child(
        tmp_path, base, 'model = dict(head=dict(_delete_=True, temperature=1))\n')
    result = run_train(child, '--work-dir', str(tmp_path / 'work'))
    assert result.returncode != 0
    assert 'model.head has no "type"' in result.stderr, result.stderr[-2000:]
    assert "KeyError: 'type'" not in result.stderr


# -- a child's custom_imports --------------------------------------------------
def test_custom_imports_that_drop_a_base_import_name_it(tmp_path, monkeypatch):
    """MMEngine replaces the base's ``custom_imports`` list with the
    child's: the base's import left out is named before any build."""
    module = f'probe_imports_{uuid.uuid4().hex[:8]}'
    (tmp_path / f'{module}.py').write_text(
        'from mmengine.model import BaseModule\n'
        'from mmidc.registry import MODELS\n\n\n'
        '@MODELS.register_module(force=True)\n'
        'class ProbeImportedNeck(BaseModule):\n'
        '    pass\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    base = write_tiny_config(str(tmp_path), max_epochs=1, extra=(
        f'custom_imports = dict(imports=[{module!r}], '
        'allow_failed_imports=False)\n'))
    own = ("custom_imports = dict(imports=['mmidc.engine'], "
           'allow_failed_imports=False)\n')
    try:
        child = Config.fromfile(write_child(tmp_path, base, own))
        assert module not in sys.modules  # the child did not import it
        with pytest.raises(ValueError, match=f"'{module}'.*{osp.basename(base)}"):
            check_config(child)
        # both imports listed: imported, and the check passes
        both = write_child(tmp_path, base, own.replace(
            "'mmidc.engine'", f"'mmidc.engine', {module!r}"), name='both.py')
        check_config(Config.fromfile(both))
        assert module in sys.modules
    finally:
        sys.modules.pop(module, None)


def test_test_tool_names_the_loader_that_lost_its_data_set(tmp_path):
    """tools/test.py runs the same check before it builds anything."""
    base = write_tiny_config(str(tmp_path), max_epochs=1)
    child = write_child(tmp_path, base, (
        "test_dataloader = dict(_delete_=True, batch_size=4)\n"
        "test_evaluator = dict(type='RetrievalMetric')\ntest_cfg = dict()\n"))
    checkpoint = tmp_path / 'epoch_1.pth'
    checkpoint.write_bytes(b'never read: the config check comes first')
    result = subprocess.run(
        [sys.executable, str(REPO / 'tools' / 'test.py'), child,
         str(checkpoint), '--work-dir', str(tmp_path / 'work')],
        cwd=str(REPO), env=tool_env(), capture_output=True, text=True,
        timeout=300)
    assert result.returncode != 0
    assert 'test_dataloader has no dataset' in result.stderr, \
        result.stderr[-2000:]
