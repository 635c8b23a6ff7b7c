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


def test_loader_workers_block_sigterm_from_their_start_and_die_at_exit():
    """Workers forked while the hook lives (before any hook runs: an
    iteration-based loop starts them when it is built) survive a SIGTERM;
    at exit they are killed, not waited on for ever."""
    import os
    import signal
    import time

    from torch.utils.data import DataLoader

    from mmidc.engine import SafeCheckpointHook
    from mmidc.engine.checkpoint_hook import _kill_workers_blocking_sigterm
    sigchld = signal.getsignal(signal.SIGCHLD)
    hook = SafeCheckpointHook(interval=1)
    iterator = iter(DataLoader(range(4), num_workers=1,
                               multiprocessing_context='fork'))
    try:
        next(iterator)
        worker = iterator._workers[0]
        os.kill(worker.pid, signal.SIGTERM)
        time.sleep(0.2)
        assert worker.is_alive()
        _kill_workers_blocking_sigterm()
        worker.join(timeout=5)
        assert worker.exitcode == -signal.SIGKILL
    finally:
        signal.signal(signal.SIGCHLD, sigchld)  # PyTorch's, reset at exit
        hook._restore_handler()  # workers forked from now on are left alone
        iterator._shutdown_workers()


def test_loader_workers_not_forked_are_a_warning(monkeypatch):
    from torch.utils.data import DataLoader

    from mmidc.engine import checkpoint_hook
    logged = []
    monkeypatch.setattr(checkpoint_hook, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    for context in ('fork', 'spawn'):
        checkpoint_hook._warn_unless_forked(DataLoader(
            range(4), num_workers=1, multiprocessing_context=context))
    checkpoint_hook._warn_unless_forked(DataLoader(range(4)))  # no workers
    assert len(logged) == 1
    assert "start by 'spawn', not 'fork'" in logged[0]
    assert 'mp_start_method' in logged[0]
