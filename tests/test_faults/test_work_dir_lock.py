"""Two trainings in one work dir: the second is refused, naming the first;
a killed run (``kill -9``) leaves no lock behind, and its ``--resume``
works."""
import os
import os.path as osp
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from mmidc.runtime.work_dir_lock import (LOCK_NAME, WorkDirInUseError,
                                         launch_rank, lock_work_dir,
                                         release_work_dir)
from tests.helpers import REPO
from tests.helpers.tiny_run import (ITERS_PER_EPOCH, run_train, tool_env,
                                    write_tiny_config)

HOLD = """
import os, sys, time
from mmidc.runtime.work_dir_lock import lock_work_dir
lock_work_dir(sys.argv[1])
{after_lock}
print('locked', flush=True)
time.sleep(120)
"""


def hold_lock(work_dir: str, after_lock: str = ''):
    """A process that takes the work dir's lock and sleeps (``after_lock``:
    code it runs once it holds the lock); returns it and what it printed."""
    code = HOLD.format(after_lock=textwrap.dedent(after_lock))
    proc = subprocess.Popen([sys.executable, '-c', code, work_dir],
                            cwd=str(REPO), env=tool_env(),
                            stdout=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith('locked'):
            return proc, lines
    raise AssertionError(f'the lock holder ended: {lines}')


def kill9(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_a_second_process_is_refused_and_a_killed_holder_frees_it(tmp_path):
    work_dir = str(tmp_path / 'work')
    holder, _ = hold_lock(work_dir)
    try:
        with pytest.raises(WorkDirInUseError) as err:
            lock_work_dir(work_dir)
        message = str(err.value)
        assert f'pid {holder.pid}' in message and work_dir in message
        assert '-c' in message  # its command line
    finally:
        kill9(holder)
    # the kernel dropped the killed holder's lock: no stale file blocks
    assert osp.isfile(osp.join(work_dir, LOCK_NAME))
    assert lock_work_dir(work_dir) == osp.join(work_dir, LOCK_NAME)
    with open(osp.join(work_dir, LOCK_NAME)) as f:
        assert f'pid {os.getpid()}' in f.read()
    assert lock_work_dir(work_dir)  # again in the holder: a no-op
    assert release_work_dir(work_dir)


def test_a_forked_worker_does_not_keep_a_killed_run_s_lock(tmp_path):
    """Data loader workers are forked from the training process: one that
    outlives a ``kill -9`` of its parent must not keep the work dir locked."""
    work_dir = str(tmp_path / 'work')
    holder, lines = hold_lock(work_dir, after_lock="""
        child = os.fork()
        if child == 0:
            time.sleep(120)
            os._exit(0)
        print('child', child, flush=True)
    """)
    child = int(next(line for line in lines if line.startswith('child')).split()[1])
    try:
        kill9(holder)
        os.kill(child, 0)  # the forked child is still alive
        assert lock_work_dir(work_dir)
        assert release_work_dir(work_dir)
    finally:
        os.kill(child, signal.SIGKILL)


def test_only_rank_0_takes_the_lock(tmp_path, monkeypatch):
    """One lock per work dir in a distributed run: the launcher's rank 0."""
    monkeypatch.setenv('RANK', '1')
    assert launch_rank('pytorch') == 1 and launch_rank('none') == 0
    assert lock_work_dir(str(tmp_path / 'work'), 'pytorch') is None
    assert not osp.exists(tmp_path / 'work' / LOCK_NAME)
    monkeypatch.setenv('SLURM_PROCID', '0')
    assert launch_rank('slurm') == 0


PAUSE = """
custom_imports = dict(imports=['tests.helpers.pause_hook'],
                      allow_failed_imports=False)
custom_hooks = [dict(type='PauseAtIterHook', iteration={iteration},
                     marker={marker!r})]
"""


def test_train_tool_refuses_a_second_run_and_resumes_a_killed_one(tmp_path):
    """tools/train.py: a run parked in epoch 2 holds its work dir; the same
    command again exits non-zero naming it and changes none of its files;
    after a ``kill -9`` of the first, ``--resume`` finishes the run."""
    marker = str(tmp_path / 'parked')
    paused = write_tiny_config(
        str(tmp_path), max_epochs=2, name='tiny_paused.py',
        extra=PAUSE.format(iteration=ITERS_PER_EPOCH + 1, marker=marker))
    plain = write_tiny_config(str(tmp_path), max_epochs=2)
    work_dir = str(tmp_path / 'work')
    first = subprocess.Popen(
        [sys.executable, str(REPO / 'tools' / 'train.py'), paused,
         '--work-dir', work_dir], cwd=str(REPO), env=tool_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 240
        while not osp.exists(marker):
            assert first.poll() is None, 'the first run ended'
            assert time.time() < deadline, 'the first run never parked'
            time.sleep(0.5)
        before = {n: os.path.getmtime(osp.join(work_dir, n))
                  for n in os.listdir(work_dir)}
        second = run_train(plain, '--work-dir', work_dir)
        assert second.returncode != 0
        assert f'pid {first.pid}' in second.stderr, second.stderr[-3000:]
        assert 'in use by another training run' in second.stderr
        # the clear message alone, no traceback before it
        assert 'Traceback' not in second.stderr, second.stderr[-3000:]
        assert second.stderr.strip().splitlines()[-1].startswith(
            'train.py: error: work dir')
        assert {n: os.path.getmtime(osp.join(work_dir, n))
                for n in os.listdir(work_dir)} == before
    finally:
        kill9(first)
    resumed = run_train(plain, '--work-dir', work_dir, '--resume')
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert 'resumed epoch: 1' in resumed.stdout + resumed.stderr
    last = torch.load(osp.join(work_dir, 'epoch_2.pth'), map_location='cpu',
                      weights_only=True)
    assert last['meta']['iter'] == 2 * ITERS_PER_EPOCH


def test_a_file_system_without_locks_warns_and_trains(tmp_path, monkeypatch):
    """A mount that refuses locks (ENOLCK) is not mistaken for a run in
    progress: the run goes on, with a warning."""
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, 'No locks available')

    monkeypatch.setattr(fcntl, 'flock', no_locks)
    assert lock_work_dir(str(tmp_path / 'work')) is None
    assert not release_work_dir(str(tmp_path / 'work'))
