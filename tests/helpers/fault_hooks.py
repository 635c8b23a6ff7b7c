"""Faults injected into a tiny training run, and a metric that always
improves, for the fault tests (tests/test_faults).

Import it in a config with ``custom_imports =
dict(imports=['tests.helpers.fault_hooks'])`` (the repository root on the
path: tools run by :func:`tests.helpers.tiny_run.run_train` have it).
"""
import errno
import itertools
import os

from mmengine.evaluator import BaseMetric
from mmengine.hooks import Hook

from mmidc.registry import HOOKS, METRICS

_SCORES = itertools.count(1)


class Killed(BaseException):
    """Stands for a kill: raised where the process would die. Nothing of
    MMEngine catches it, so the files are left as a kill leaves them."""


@METRICS.register_module(force=True)
class RisingScoreMetric(BaseMetric):
    """``score`` grows with every validation: each one is a new best."""

    def process(self, data_batch, data_samples) -> None:
        self.results.append(0)

    def compute_metrics(self, results) -> dict:
        return {'score': float(next(_SCORES))}


@HOOKS.register_module(force=True)
class FaultAtSaveHook(Hook):
    """A fault when one checkpoint is about to be written.

    Args:
        epoch (int): ``runner.epoch`` at that save: the checkpoint of
            epoch ``n`` is written at ``n - 1``; after a validation with a
            new best, at ``n``, the best checkpoint and then the checkpoint
            of epoch ``n`` again.
        best (bool): The best checkpoint (saved without the optimizer) or
            the epoch's checkpoint.
        fault (str): ``'kill'``: raise :class:`Killed` before the write;
            ``'exit'``: ``os._exit(3)`` in the middle of the write (after the
            data, at the fsync); ``'full'``: the write fails with ENOSPC.
    """

    priority = 'VERY_LOW'

    def __init__(self, epoch: int, best: bool = False, fault: str = 'kill'):
        self.epoch, self.best, self.fault = epoch, best, fault

    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        is_best = 'optimizer' not in checkpoint
        if runner.epoch != self.epoch or is_best != self.best:
            return
        if self.fault == 'kill':
            raise Killed(f'killed before a save at epoch {runner.epoch}')
        real_fsync = os.fsync

        def fsync(fd):
            os.fsync = real_fsync  # this write only
            if self.fault == 'exit':
                os._exit(3)
            raise OSError(errno.ENOSPC, 'No space left on device')

        os.fsync = fsync


@HOOKS.register_module(force=True)
class KillAtIterHook(Hook):
    """Raise :class:`Killed` before training iteration ``iteration``
    (``runner.iter``, counted from 0 over the whole run): the run stops in
    the middle of an epoch, its loader's workers die with it, nothing more
    is saved."""

    priority = 'VERY_HIGH'

    def __init__(self, iteration: int):
        self.iteration = iteration

    def before_train_iter(self, runner, batch_idx, data_batch=None) -> None:
        if runner.iter != self.iteration:
            return
        # The (persistent) workers stop with the process: here at once, not
        # when the loader is collected, which waits seconds for each.
        iterator = getattr(runner.train_loop.dataloader, '_iterator', None)
        if iterator is not None and hasattr(iterator, '_shutdown_workers'):
            iterator._shutdown_workers()
        raise Killed(f'killed before iteration {runner.iter}')
