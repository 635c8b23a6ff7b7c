"""Let MMEngine checkpoints load with ``torch.load(weights_only=True)``.

Since torch 2.6, ``torch.load`` defaults to ``weights_only=True``, which
refuses every global that is not allow-listed. MMEngine 0.10 checkpoints hold,
besides tensors, the message hub's :class:`~mmengine.logging.HistoryBuffer`
objects (numpy arrays, numpy scalars and dtypes, and references to the
buffer's own statistics methods pickled as ``getattr(HistoryBuffer, 'min')``).
``runner.resume`` therefore fails on a checkpoint the same runner wrote.

The fix allow-lists exactly those classes. ``getattr`` itself is *not*
allowed: the name ``builtins.getattr`` is bound to :func:`_history_buffer_attr`,
which only returns the four statistics methods of ``HistoryBuffer`` and
rejects everything else, so no attribute of any other object can be reached.
Arbitrary pickles still fail to load.
"""
import builtins

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

_HISTORY_BUFFER_METHODS = ('min', 'max', 'mean', 'current')


def _history_buffer_attr(obj, name):
    """A ``getattr`` that only resolves ``HistoryBuffer``'s statistics."""
    if obj is HistoryBuffer and name in _HISTORY_BUFFER_METHODS:
        return getattr(HistoryBuffer, name)
    raise torch.serialization.pickle.UnpicklingError(
        f'refusing getattr({obj!r}, {name!r}) while loading a checkpoint '
        'with weights_only=True: only HistoryBuffer statistics are allowed')


def _numpy_globals() -> list:
    """numpy classes that a pickled array, scalar or dtype refers to."""
    try:  # numpy >= 2
        from numpy._core.multiarray import _reconstruct, scalar
    except ImportError:  # numpy 1.x
        from numpy.core.multiarray import _reconstruct, scalar
    dtype_classes = {type(np.dtype(t)) for t in (
        np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
        np.int64, np.uint8, np.bool_)}
    return [_reconstruct, scalar, np.ndarray, np.dtype, *dtype_classes]


def allow_mmengine_checkpoint_globals() -> None:
    """Allow-list what MMEngine checkpoints contain for ``weights_only``."""
    if not hasattr(torch.serialization, 'add_safe_globals'):
        return  # torch < 2.4 has no allow-list (and no weights_only default)
    torch.serialization.add_safe_globals([
        HistoryBuffer,
        *_numpy_globals(),
        (_history_buffer_attr, f'{builtins.__name__}.getattr'),
    ])


allow_mmengine_checkpoint_globals()
