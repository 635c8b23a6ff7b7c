"""One training run per work dir.

Two runs writing to one work dir replace each other's checkpoints, pointer
and best checkpoint. :func:`lock_work_dir` takes an exclusive ``flock`` on
``<work_dir>/.train.lock`` for the rest of the process's life and writes the
holder's pid, host and command line into it; a second run on the same work
dir is refused with an error naming that process. The kernel releases the
lock when the process ends however it ends (``kill -9`` included), so a
killed run leaves nothing to clean up and ``--resume`` of it just works.
"""
import fcntl
import os
import os.path as osp
import socket
import sys
import time
from typing import Optional

from mmengine.logging import print_log

__all__ = ['LOCK_NAME', 'WorkDirInUseError', 'WorkDirNotWritableError',
           'lock_work_dir', 'release_work_dir', 'launch_rank']

#: The lock file's name in the work dir.
LOCK_NAME = '.train.lock'

_held = {}  # work dir -> open lock file, kept for the process's life


class WorkDirInUseError(RuntimeError):
    """Another process holds the work dir's lock."""


class WorkDirNotWritableError(RuntimeError):
    """The work dir cannot be created or written (a read-only file system,
    no permission, a full disk)."""


def launch_rank(launcher: str = 'none') -> int:
    """The global rank of this process, read from its launcher's
    environment before the process group exists (0 without a launcher)."""
    names = {'pytorch': ('RANK', ),
             'slurm': ('SLURM_PROCID', ),
             'mpi': ('OMPI_COMM_WORLD_RANK', 'PMI_RANK')}.get(launcher, ())
    for name in names:
        if os.environ.get(name, '').isdigit():
            return int(os.environ[name])
    return 0


def _close_in_child(path: str) -> None:
    """A forked child (a data loader worker) drops its copy of the lock's
    file descriptor: the lock then ends with the process that took it."""
    held = _held.pop(path, None)
    if held is not None:
        try:
            held.close()
        except OSError:
            pass


def lock_work_dir(work_dir: str, launcher: str = 'none') -> Optional[str]:
    """Hold the work dir's training lock for the rest of this process.

    Only global rank 0 of a distributed run takes it (one lock per work
    dir); other ranks return None. Taking it again in the process that
    holds it is a no-op.

    Args:
        work_dir (str): The run's work dir (created if missing).
        launcher (str): The job launcher (``none``, ``pytorch``, ``slurm``,
            ``mpi``), to find the rank. Defaults to ``'none'``.

    Returns:
        str or None: the lock file; None on ranks other than 0, and on a
        file system that has no locks (logged as a warning).

    Raises:
        WorkDirInUseError: another process holds it, naming its pid, host,
            start time and command line.
        WorkDirNotWritableError: the work dir cannot be created or written,
            naming it and the reason.
    """
    if launch_rank(launcher) != 0:
        return None
    work_dir = osp.abspath(work_dir)
    path = osp.join(work_dir, LOCK_NAME)
    if path in _held:
        return path
    try:
        os.makedirs(work_dir, exist_ok=True)
        handle = open(path, 'a+')  # never truncated before the lock is ours
    except OSError as e:
        raise WorkDirNotWritableError(
            f'work dir {work_dir} is not writable ({e.strerror}: '
            f'{e.filename or path}); a training run writes its logs and '
            'checkpoints there. Give it a writable --work-dir.') from e
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or 'a process that has not yet ' \
            'written its name'
        handle.close()
        raise WorkDirInUseError(
            f'work dir {work_dir} is in use by another training run '
            f'({holder}); two runs in one work dir replace each other\'s '
            'checkpoints. Wait for it to end, stop it, or give this run its '
            f'own --work-dir (the lock: {path})') from None
    except OSError as e:  # a file system without locks (some NFS mounts)
        handle.close()
        print_log(f'{work_dir}: cannot lock {path} ({e}); this run does not '
                  'keep a second run off its work dir', logger='current',
                  level=30)
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f'pid {os.getpid()} on {socket.gethostname()}, started '
                 f'{time.strftime("%Y-%m-%d %H:%M:%S")}: '
                 f'{" ".join([sys.executable] + sys.argv)}\n')
    handle.flush()
    _held[path] = handle
    os.register_at_fork(after_in_child=lambda: _close_in_child(path))
    print_log(f'holding {path} (one training run per work dir)',
              logger='current')
    return path


def release_work_dir(work_dir: str) -> bool:
    """Give up this process's lock on a work dir (a process that trains
    several runs in turn, tests).

    Returns:
        bool: whether this process held it.
    """
    handle = _held.pop(osp.join(osp.abspath(work_dir), LOCK_NAME), None)
    if handle is None:
        return False
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    handle.close()
    return True
