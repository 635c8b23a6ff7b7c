"""A local file backend whose writes are atomic.

MMEngine writes checkpoints (and the ``last_checkpoint`` pointer) through a
file backend. The stock local backend opens the target and writes into it, so
a crash or a full disk during a save leaves a truncated "latest" checkpoint.
``AtomicLocalBackend`` writes to a temporary file in the same folder, flushes
and fsyncs it, then renames it over the target (``os.replace`` is atomic on
POSIX and Windows). The file gets the permissions ``open()`` would give it
(``0o666`` less the umask), not ``mkstemp``'s ``0o600``. A temporary file
left by a killed process (``.<name>.<random>.tmp``) is removed by
:func:`remove_stale_temp_files`, which the checkpoint hook calls when a run
starts. Select the backend in a config with::

    default_hooks = dict(checkpoint=dict(
        type='SafeCheckpointHook', backend_args=dict(backend='atomic_local')))
"""
import errno
import os
import os.path as osp
import re
import tempfile
from pathlib import Path
from typing import Union

from mmengine.fileio import LocalBackend, register_backend
from mmengine.logging import print_log

# ``.<target name>.<mkstemp's 8 random characters>.tmp``
_TEMP_NAME = re.compile(r'^\..+\.[A-Za-z0-9_]{8}\.tmp$')


def _file_mode() -> int:
    """``0o666`` less the process umask: what ``open()`` creates."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# A full disk or quota, a read-only file system, no permission: named with
# the file being written.
DISK_ERRNOS = frozenset(
    (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM))


def _atomic_write(data: bytes, filepath: Union[str, Path]) -> None:
    filepath = str(filepath)
    folder = osp.dirname(osp.abspath(filepath))
    tmp_path = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp_path = tempfile.mkstemp(
            dir=folder, prefix=f'.{osp.basename(filepath)}.', suffix='.tmp')
        os.fchmod(fd, _file_mode())
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, filepath)
    except BaseException as err:
        if tmp_path is not None and osp.exists(tmp_path):
            os.remove(tmp_path)
        if isinstance(err, OSError) and err.errno in DISK_ERRNOS:
            kept = ('the previous file is unchanged' if osp.exists(filepath)
                    else 'nothing was written')
            raise OSError(err.errno, f'{err.strerror}: cannot write '
                          f'{filepath} ({kept})') from err
        raise


def remove_stale_temp_files(folder: Union[str, Path]) -> list:
    """Remove the temporary files that an interrupted atomic write left.

    A process killed during a write leaves its ``.<name>.<random>.tmp``
    (possibly full size); the target itself is untouched. Call this when a
    run starts, before anything writes to ``folder``.

    Args:
        folder (str | Path): The folder the writes went to.

    Returns:
        list[str]: The removed files.
    """
    folder = str(folder)
    if not osp.isdir(folder):
        return []
    removed = []
    for name in sorted(os.listdir(folder)):
        path = osp.join(folder, name)
        if _TEMP_NAME.match(name) and osp.isfile(path):
            os.remove(path)
            removed.append(path)
            print_log(f'removed {path}, left by an interrupted save',
                      logger='current')
    return removed


class AtomicLocalBackend(LocalBackend):
    """:class:`~mmengine.fileio.LocalBackend` with atomic ``put``."""

    def put(self, obj: bytes, filepath: Union[str, Path]) -> None:
        _atomic_write(obj, filepath)

    def put_text(self,
                 obj: str,
                 filepath: Union[str, Path],
                 encoding: str = 'utf-8') -> None:
        _atomic_write(obj.encode(encoding), filepath)


register_backend('atomic_local', AtomicLocalBackend, force=True)
