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

MMEngine's checkpoint loaders (``load_from``, ``resume``, ``init_cfg``
``Pretrained``, ``CheckpointHook``) call ``torch.load`` without
``weights_only``, so ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` would turn the
check off for them. :func:`force_weights_only_loaders` replaces every
registered loader with one that passes ``weights_only=True`` (which the
variable cannot override); local ``.safetensors`` files load without pickle.
"""
import builtins
import functools
import os.path as osp

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

from .checkpoint_io import load_checkpoint_file

__all__ = ['allow_mmengine_checkpoint_globals', 'force_weights_only_loaders',
           'load_from_local']

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


def load_from_local(filename: str, map_location=None) -> dict:
    """MMEngine's local checkpoint loader (same name: MMEngine logs it),
    with ``weights_only=True``.

    Args:
        filename (str): A ``torch.save`` file or a ``.safetensors`` file
            (read as ``{'state_dict': ...}``).
        map_location: As for :func:`torch.load`.

    Returns:
        dict: The checkpoint.

    Raises:
        FileNotFoundError: No such file (the message names it).
        ValueError: A file ``weights_only`` refuses, or a corrupt file; the
            message names it.
    """
    if not filename:
        raise FileNotFoundError(
            'empty checkpoint path (an empty work_dir/last_checkpoint?): pass '
            'the checkpoint to resume from (tools/train.py --resume PATH)')
    filename = osp.expanduser(filename)
    if not osp.isfile(filename):
        raise FileNotFoundError(f'checkpoint not found: {filename!r}')
    ckpt = load_checkpoint_file(filename, map_location)
    return ({'state_dict': ckpt} if filename.endswith('.safetensors')
            else ckpt)


load_from_local.forces_weights_only = True


def _forcing_weights_only(loader):
    """``loader`` run with ``torch.load`` forced to ``weights_only=True``."""
    @functools.wraps(loader)
    def load(filename, map_location=None):
        original = torch.load

        @functools.wraps(original)
        def forced(*args, **kwargs):
            kwargs['weights_only'] = True
            return original(*args, **kwargs)

        torch.load = forced
        try:
            return loader(filename, map_location)
        finally:
            torch.load = original

    load.forces_weights_only = True
    return load


def force_weights_only_loaders() -> None:
    """Make every MMEngine checkpoint loader use ``weights_only=True``.

    The local loader becomes :func:`load_from_local`; the others
    (http, s3, open-mmlab ...) run with ``torch.load`` forced to
    ``weights_only=True``.
    """
    from mmengine.runner.checkpoint import CheckpointLoader
    for prefix, loader in list(CheckpointLoader._schemes.items()):
        if getattr(loader, 'forces_weights_only', False):
            continue
        new = (load_from_local if prefix == '' else
               _forcing_weights_only(loader))
        CheckpointLoader.register_scheme(prefix, force=True)(new)


allow_mmengine_checkpoint_globals()
force_weights_only_loaders()
