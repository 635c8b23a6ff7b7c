"""LoaderShutdownHook: a finished run leaves no loader worker alive."""
from types import SimpleNamespace

import pytest
from mmengine.runner import BaseLoop
from torch.utils.data import DataLoader

from mmidc.engine import LoaderShutdownHook
from mmidc.engine.loader_shutdown_hook import shutdown_workers
from tests.helpers.tiny_run import tool_env, train_in_process, write_tiny_config


class _Loop(BaseLoop):
    def run(self):
        for _ in self.dataloader:
            pass


def _persistent_loader():
    return DataLoader(list(range(8)), batch_size=2, num_workers=2,
                      persistent_workers=True)


def test_after_run_stops_the_persistent_workers():
    loader = _persistent_loader()
    loop = _Loop(runner=SimpleNamespace(), dataloader=loader)
    loop.run()
    workers = list(loader._iterator._workers)
    assert all(w.is_alive() for w in workers)  # persistent: kept after the epoch
    LoaderShutdownHook().after_run(SimpleNamespace(_train_loop=loop, _val_loop=None,
                                                   _test_loop={'type': 'TestLoop'}))
    assert not any(w.is_alive() for w in workers)
    assert loader._iterator is None
    # the loader still works afterwards (a later train() or test())
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    shutdown_workers(loader)


def test_loaders_without_workers_are_left_alone():
    loader = DataLoader(list(range(4)), batch_size=2)
    list(loader)
    assert shutdown_workers(loader) is False
    assert shutdown_workers(None) is False


def test_a_run_of_the_shipped_runtime_releases_its_workers(tmp_path):
    """The default runtime registers the hook: after ``runner.train()`` the
    training loader (2 persistent workers) has no live worker."""
    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=(
        'train_dataloader.update(num_workers=2, persistent_workers=True)\n'
        'val_dataloader = None\nval_cfg = None\nval_evaluator = None\n'))
    runner = train_in_process(config, str(tmp_path / 'work'),
                              cfg_options={'default_hooks.checkpoint.save_best': None})
    assert any(isinstance(h, LoaderShutdownHook) for h in runner.hooks)
    assert runner.train_loop.dataloader._iterator is None


@pytest.mark.cuda
def test_a_gpu_run_with_pinned_persistent_workers_exits_promptly(tmp_path):
    """With pinned memory and persistent workers a run used to spend 5 s per
    worker at interpreter exit (about 60-80 s with 15 workers)."""
    from mmidc_lab.benchmarks.e2e import run_train
    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=(
        'train_dataloader.update(num_workers=8, persistent_workers=True, '
        'pin_memory=True)\n'
        'val_dataloader = None\nval_cfg = None\nval_evaluator = None\n'
        'default_hooks.checkpoint.save_best = None\n'))
    env = tool_env(extra_env={'CUDA_VISIBLE_DEVICES': '0'})
    run = run_train(config, str(tmp_path / 'work'), env=env, timeout=300)
    assert run['shutdown_s'] < 10, run['output'][-2000:]
