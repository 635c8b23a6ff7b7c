"""mmidc.engine.DataRootCheckHook: a run whose loader reads none of the
config's folders (a child built with Runner.from_cfg, which skips the
data_root pass) is warned about before the first step."""
from types import SimpleNamespace

import pytest
from mmengine.config import Config
from mmengine.runner import BaseLoop

from mmidc.engine import DataRootCheckHook
from tests.helpers import REPO


class _Loop(BaseLoop):

    def run(self):
        pass


def _dataset(root):
    return SimpleNamespace(data_root=root)


def _runner(cfg, **datasets):
    runner = SimpleNamespace(cfg=Config(cfg))
    for split, dataset in datasets.items():
        setattr(runner, f'_{split}_loop',
                _Loop(runner, SimpleNamespace(dataset=dataset)))
    return runner


@pytest.fixture
def folders(tmp_path, monkeypatch):
    for name in ('my_pairs', 'mp2', 'shifted'):
        (tmp_path / name).mkdir()
    (tmp_path / 'link').symlink_to(tmp_path / 'mp2')
    logged = []
    monkeypatch.setattr('mmidc.engine.data_root_check_hook.print_log',
                        lambda message, **kwargs: logged.append(message))
    return {name: str(tmp_path / name)
            for name in ('my_pairs', 'mp2', 'shifted', 'link')}, logged


def test_a_loader_on_the_bases_folder_is_warned_about(folders):
    path, logged = folders
    runner = _runner(dict(data_root=path['mp2']),
                     train=_dataset(path['my_pairs']),
                     val=_dataset(path['mp2']),
                     test=SimpleNamespace(dataset=_dataset(path['my_pairs'])))
    DataRootCheckHook().before_run(runner)
    assert len(logged) == 2
    assert logged[0].startswith(f"the train data set reads {path['my_pairs']!r}")
    assert f"data_root={path['mp2']!r}" in logged[0]
    assert 'apply_data_root' in logged[0]
    assert logged[1].startswith('the test data set reads')


def test_the_configs_folders_are_quiet(folders):
    path, logged = folders
    concat = SimpleNamespace(datasets=[_dataset(path['link']),
                                       _dataset(path['my_pairs'])])
    runner = _runner(dict(data_root=path['mp2'], shifted_root=path['shifted']),
                     train=concat, test=_dataset(path['shifted']))
    runner._val_loop = dict(type='ValLoop')  # not built: left alone
    DataRootCheckHook().before_run(runner)
    assert logged == []


def test_every_config_has_the_hook():
    cfg = Config.fromfile(
        str(REPO / 'configs' / 'clip4idc' /
            'clip4idc-caption_vit-b32_my-pairs.py'))
    assert cfg.default_hooks.data_root_check == dict(type='DataRootCheckHook')
