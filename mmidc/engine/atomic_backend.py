"""A local file backend whose writes are atomic.

MMEngine writes checkpoints (and the ``last_checkpoint`` pointer) through a
file backend. The stock local backend opens the target and writes into it, so
a crash or a full disk during a save leaves a truncated "latest" checkpoint.
``AtomicLocalBackend`` writes to a temporary file in the same folder, flushes
and fsyncs it, then renames it over the target (``os.replace`` is atomic on
POSIX and Windows). Select it in a config with::

    default_hooks = dict(checkpoint=dict(
        type='CheckpointHook', backend_args=dict(backend='atomic_local')))
"""
import os
import os.path as osp
import tempfile
from pathlib import Path
from typing import Union

from mmengine.fileio import LocalBackend, register_backend


def _atomic_write(data: bytes, filepath: Union[str, Path]) -> None:
    filepath = str(filepath)
    folder = osp.dirname(osp.abspath(filepath))
    os.makedirs(folder, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(
        dir=folder, prefix=f'.{osp.basename(filepath)}.', suffix='.tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, filepath)
    except BaseException:
        if osp.exists(tmp_path):
            os.remove(tmp_path)
        raise


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
