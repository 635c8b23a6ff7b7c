"""find_resume_checkpoint: the checkpoint ``last_checkpoint`` names, else the
newest complete one (kills and torn writes in a real run:
tests/test_faults/test_kill_resume.py)."""
import os.path as osp

import pytest
import torch

from mmidc.engine import find_resume_checkpoint


def _save(work_dir, name, complete=True):
    path = osp.join(work_dir, name)
    torch.save(dict(meta=name), path)
    if not complete:
        with open(path, 'r+b') as f:
            f.truncate(50)
    return path


def test_pointer_then_newest_complete_checkpoint(tmp_path):
    work_dir = str(tmp_path)
    assert find_resume_checkpoint(work_dir) is None  # a fresh start
    _save(work_dir, 'epoch_2.pth')
    newest = _save(work_dir, 'epoch_10.pth')  # by number, not by name
    _save(work_dir, 'epoch_11.pth', complete=False)
    _save(work_dir, 'best_rsum_epoch_12.pth')
    assert find_resume_checkpoint(work_dir) == newest  # no pointer
    pointer = tmp_path / 'last_checkpoint'
    named = _save(work_dir, 'epoch_2.pth')
    pointer.write_text(named + '\n')
    assert find_resume_checkpoint(work_dir) == named
    pointer.write_text(osp.join(work_dir, 'epoch_11.pth'))  # a torn write
    assert find_resume_checkpoint(work_dir) == newest


def test_a_pointer_with_nothing_to_resume_is_an_error(tmp_path):
    (tmp_path / 'last_checkpoint').write_text(str(tmp_path / 'gone.pth'))
    with pytest.raises(FileNotFoundError, match=r"names '.*gone\.pth', which is missing"):
        find_resume_checkpoint(str(tmp_path))


def test_loader_workers_built_by_idc_runner_ignore_sigterm_and_die_at_exit():
    """Workers of a loader IDCRunner built (an iteration-based loop starts
    them when it is built, before any hook runs) survive a SIGTERM; at exit
    they are killed, not waited on for ever. MMEngine's seeding still runs."""
    import os
    import signal
    import time

    from mmidc.engine.worker_sigterm import (WorkerIgnoresSigterm,
                                             kill_workers_ignoring_sigterm)
    from mmidc.runtime.idc_runner import IDCRunner
    sigchld = signal.getsignal(signal.SIGCHLD)
    loader = IDCRunner.build_dataloader(dict(
        dataset=list(range(4)), batch_size=1, num_workers=1,
        sampler=dict(type='DefaultSampler', shuffle=False)), seed=0)
    assert isinstance(loader.worker_init_fn, WorkerIgnoresSigterm)
    assert loader.worker_init_fn.init_fn is not None  # MMEngine's
    iterator = iter(loader)
    try:
        next(iterator)
        worker = iterator._workers[0]
        os.kill(worker.pid, signal.SIGTERM)
        time.sleep(0.2)
        assert worker.is_alive()
        kill_workers_ignoring_sigterm()
        worker.join(timeout=5)
        assert worker.exitcode == -signal.SIGKILL
    finally:
        signal.signal(signal.SIGCHLD, sigchld)  # PyTorch's, reset at exit
        iterator._shutdown_workers()
    no_workers = IDCRunner.build_dataloader(dict(
        dataset=list(range(4)), batch_size=1,
        sampler=dict(type='DefaultSampler', shuffle=False)), seed=0)
    assert not isinstance(no_workers.worker_init_fn, WorkerIgnoresSigterm)


def test_iteration_based_loop_of_a_plain_runner_is_a_warning(monkeypatch):
    """A plain Runner's iteration-based loop started its first workers
    before before_run: a warning naming IDCRunner; an IDCRunner's, none."""
    from types import SimpleNamespace

    from mmengine.runner import EpochBasedTrainLoop, IterBasedTrainLoop
    from torch.utils.data import DataLoader

    from mmidc.engine import SafeCheckpointHook, checkpoint_hook
    from mmidc.engine.worker_sigterm import workers_ignore_sigterm
    logged = []
    monkeypatch.setattr(checkpoint_hook, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    monkeypatch.setattr(checkpoint_hook.CheckpointHook, 'before_run',
                        lambda self, runner: None)

    def before_run(loop_type, wrapped=False):
        loop = loop_type.__new__(loop_type)
        loop.dataloader = DataLoader(range(4), num_workers=1)
        if wrapped:
            workers_ignore_sigterm(loop.dataloader)
        hook = SafeCheckpointHook(interval=1)
        try:
            hook.before_run(SimpleNamespace(_train_loop=loop, _val_loop=None))
        finally:
            hook.restore_sigterm_handler()
        assert workers_ignore_sigterm(loop.dataloader) is False  # wrapped
    before_run(IterBasedTrainLoop, wrapped=True)
    before_run(EpochBasedTrainLoop)
    assert logged == []
    before_run(IterBasedTrainLoop)
    assert len(logged) == 1
    assert "runner_type='mmidc.runtime.idc_runner.IDCRunner'" in logged[0]


def _hook_with_its_handler_set(monkeypatch):
    from types import SimpleNamespace

    from mmengine.runner import EpochBasedTrainLoop

    from mmidc.engine import SafeCheckpointHook, checkpoint_hook
    monkeypatch.setattr(checkpoint_hook.CheckpointHook, 'before_run',
                        lambda self, runner: None)
    loop = EpochBasedTrainLoop.__new__(EpochBasedTrainLoop)
    loop.dataloader = None
    hook = SafeCheckpointHook(interval=1)
    hook.before_run(SimpleNamespace(_train_loop=loop, _val_loop=None))
    return hook


def _start_then_sleep(started):
    import time
    started.set()
    time.sleep(30)


def test_a_process_forked_while_the_handler_is_set_ends_at_sigterm(monkeypatch):
    """A process the user's code forks during a run (or after a run that ended
    in an exception), e.g. a multiprocessing Pool's worker, ends at the
    SIGTERM with which Pool.terminate stops it; the run's flag stays unset."""
    import multiprocessing
    import signal
    import time
    hook = _hook_with_its_handler_set(monkeypatch)
    context = multiprocessing.get_context('fork')
    started = context.Event()
    try:
        child = context.Process(target=_start_then_sleep, args=(started, ))
        child.start()
        # (a signal that reaches a child before CPython's after-fork reset
        # is dropped there, with any Python handler in place)
        assert started.wait(timeout=10)
        child.terminate()
        child.join(timeout=10)
        assert child.exitcode == -signal.SIGTERM
        assert hook._sigterm is False
    finally:
        hook.restore_sigterm_handler()
        if child.is_alive():
            child.kill()


def test_a_run_ending_in_an_exception_gives_sigterm_back(monkeypatch):
    """IDCRunner.train restores the handler SIGTERM had before the run when
    the run raises (after_train, which restores it otherwise, never runs)."""
    import signal

    from mmengine.runner import Runner

    from mmidc.runtime.idc_runner import IDCRunner
    before = signal.getsignal(signal.SIGTERM)
    hook = _hook_with_its_handler_set(monkeypatch)
    assert signal.getsignal(signal.SIGTERM) == hook._on_sigterm

    def fails(self):
        raise RuntimeError('a bad batch')
    monkeypatch.setattr(Runner, 'train', fails)
    runner = IDCRunner.__new__(IDCRunner)
    runner._hooks = [hook]
    with pytest.raises(RuntimeError, match='a bad batch'):
        runner.train()
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_sigterm_soon_after_the_first_is_the_same_stop(monkeypatch):
    """scancel signals the ranks, and torchrun (or srun) passes its own
    SIGTERM on: within the window it is the same stop (the run still saves);
    a later one ends the process at once, as the default would."""
    import os
    import signal

    from mmidc.engine import checkpoint_hook
    killed = []
    monkeypatch.setattr(checkpoint_hook.os, 'kill',
                        lambda pid, sig: killed.append((pid, sig)))
    now = [1000.0]
    monkeypatch.setattr(checkpoint_hook.time, 'monotonic', lambda: now[0])
    hook = _hook_with_its_handler_set(monkeypatch)
    try:
        hook._on_sigterm(signal.SIGTERM, None)
        now[0] += 0.2  # torchrun's, just after scancel's
        hook._on_sigterm(signal.SIGTERM, None)
        assert hook._sigterm and killed == []
        assert signal.getsignal(signal.SIGTERM) == hook._on_sigterm
        now[0] += checkpoint_hook.SIGTERM_REPEAT_WINDOW  # the user's second
        hook._on_sigterm(signal.SIGTERM, None)
        assert killed == [(os.getpid(), signal.SIGTERM)]
        assert signal.getsignal(signal.SIGTERM) != hook._on_sigterm
    finally:
        hook.restore_sigterm_handler()
