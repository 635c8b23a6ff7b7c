"""Warn when the data sets of a run read none of its config's folders."""
import logging
import os.path as osp
from typing import Iterator

from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.runner import BaseLoop

from mmidc.registry import HOOKS

__all__ = ['DataRootCheckHook', 'dataset_folders']


def dataset_folders(dataset) -> Iterator[str]:
    """The ``data_root`` of each data set a built data set reads (wrapper
    data sets, ``datasets`` and ``dataset``, unwrapped; an empty one is
    skipped).

    Args:
        dataset: A built data set.

    Yields:
        str: Each ``data_root``.
    """
    many = getattr(dataset, 'datasets', None)
    inner = getattr(dataset, 'dataset', None)
    if isinstance(many, (list, tuple)):
        for item in many:
            yield from dataset_folders(item)
    elif inner is not None and inner is not dataset:
        yield from dataset_folders(inner)
    else:
        root = getattr(dataset, 'data_root', None)
        if isinstance(root, str) and root:
            yield root


@HOOKS.register_module()
class DataRootCheckHook(Hook):
    """A warning before the first step for each loader whose data set reads
    none of the config's folders (``data_root``, another top-level
    ``*_root``), compared as folders (links resolved).

    MMEngine binds a base config's ``data_root`` into its loaders when it
    reads the file, so a child that sets only ``data_root`` and is built
    with ``Runner.from_cfg`` (or a stock MMPretrain tool) trains on the
    base's folder; ``tools/train.py`` and ``tools/test.py`` re-derive the
    paths first (:mod:`mmidc.runtime.data_root`). The hook reads the built
    data sets and the config's top-level settings only, and warns; it
    changes nothing. Loops that were not built are left alone.
    """

    def before_run(self, runner) -> None:
        cfg = getattr(runner, 'cfg', None)
        data_root = cfg.get('data_root') if cfg is not None else None
        if not isinstance(data_root, str):
            return
        roots = {key: value for key, value in cfg.items()
                 if key.endswith('_root') and isinstance(value, str)}
        allowed = {osp.realpath(value) for value in roots.values()}
        for name in ('_train_loop', '_val_loop', '_test_loop'):
            loop = getattr(runner, name, None)
            if not isinstance(loop, BaseLoop):
                continue
            folders = sorted(set(dataset_folders(
                getattr(loop.dataloader, 'dataset', None))))
            if not folders or any(osp.realpath(folder) in allowed
                                  for folder in folders):
                continue
            print_log(
                f'the {name[1:-5]} data set reads '
                f'{", ".join(map(repr, folders))}, none of the config\'s '
                f'folders ({", ".join(f"{k}={v!r}" for k, v in roots.items())}'
                '): a config built with Runner.from_cfg or a stock tool keeps '
                'the folder a base config bound when it was read. Use '
                'tools/train.py / tools/test.py, or call '
                'mmidc.runtime.data_root.apply_data_root(cfg, config_file) '
                'before Runner.from_cfg (docs/new_dataset.md).',
                logger='current', level=logging.WARNING)
