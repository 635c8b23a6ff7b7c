"""Known errors of tools/train.py and tools/test.py (a read-only work dir, a
full disk) end the command with one clear line naming the file, exit status
1, no traceback. (The work dir in use: tests/test_faults/test_work_dir_lock.py.)"""
import errno
import os
import os.path as osp
import sys

import pytest
from mmengine.config import Config

from mmidc.cli import test as test_cli
from mmidc.cli import train as train_cli
from mmidc.engine.atomic_backend import AtomicLocalBackend
from mmidc.runtime.work_dir_lock import release_work_dir
from tests.helpers.tiny_run import write_tiny_config


def run_cli(module, monkeypatch, capsys, *argv):
    monkeypatch.setattr(sys, 'argv', [f'{module.__name__}.py', *argv])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert 'Traceback' not in err
    return err.strip().splitlines()


@pytest.fixture(scope='module')
def config(tmp_path_factory):
    return write_tiny_config(str(tmp_path_factory.mktemp('clear_errors')),
                             max_epochs=1)


def test_train_in_a_read_only_work_dir_names_it(config, tmp_path,
                                                monkeypatch, capsys):
    work_dir = str(tmp_path / 'ro' / 'work')
    real_makedirs = os.makedirs

    def makedirs(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path / 'ro')):
            raise OSError(errno.EROFS, 'Read-only file system', path)
        return real_makedirs(path, *args, **kwargs)

    monkeypatch.setattr(os, 'makedirs', makedirs)
    lines = run_cli(train_cli, monkeypatch, capsys, config,
                    '--work-dir', work_dir)
    assert lines == [f'train.py: error: work dir {work_dir} is not writable '
                     f'(Read-only file system: {work_dir}); a training run '
                     'writes its logs and checkpoints there. Give it a '
                     'writable --work-dir.']


def test_train_on_a_full_disk_names_the_checkpoint(config, tmp_path,
                                                   monkeypatch, capsys):
    """The checkpoint write fails with ENOSPC (at the fsync, as a full disk
    does): the one line names the checkpoint and what is left of it."""
    work_dir = str(tmp_path / 'work')
    target = osp.join(work_dir, 'epoch_1.pth')

    def fsync(fd):
        raise OSError(errno.ENOSPC, 'No space left on device')

    def from_cfg(cfg):  # the run's first checkpoint write
        monkeypatch.setattr(os, 'fsync', fsync)
        AtomicLocalBackend().put(b'weights', target)

    monkeypatch.setattr(train_cli.Runner, 'from_cfg', from_cfg)
    lines = run_cli(train_cli, monkeypatch, capsys, config,
                    '--work-dir', work_dir)
    assert lines[-1] == ('train.py: error: No space left on device: cannot '
                         f'write {target} (nothing was written)')
    assert not [n for n in os.listdir(work_dir) if n.endswith('.tmp')]
    assert release_work_dir(work_dir)  # the lock this process took


def test_test_tool_reports_an_unreadable_file_in_one_line(
        config, tmp_path, monkeypatch, capsys):
    checkpoint = tmp_path / 'model.pth'
    checkpoint.write_bytes(b'')

    def fromfile(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, 'Permission denied', path)

    monkeypatch.setattr(Config, 'fromfile', fromfile)
    lines = run_cli(test_cli, monkeypatch, capsys, config, str(checkpoint))
    assert lines == [f'test.py: error: Permission denied: {config}']


def test_other_errors_keep_their_traceback(config, monkeypatch):
    monkeypatch.setattr(train_cli, 'check_config',
                        lambda cfg: 1 / 0)  # a bug, not a known error
    monkeypatch.setattr(sys, 'argv', ['train.py', config])
    with pytest.raises(ZeroDivisionError):
        train_cli.main()
