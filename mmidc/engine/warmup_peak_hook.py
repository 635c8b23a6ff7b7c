"""Warn when a run ends before its learning-rate warm-up has peaked."""
import logging
import math
from typing import List, Optional, Tuple

from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.optim.scheduler.param_scheduler import LinearParamScheduler

from mmidc.registry import HOOKS
from .schedulers.bert_warmup_lr import BertWarmupLR
from .schedulers.noam_lr import NoamLR

__all__ = ['WarmupPeakHook', 'warmup_peak_iteration', 'warmups_cut_short']


def warmup_peak_iteration(scheduler,
                          epoch_length: Optional[int]) -> Optional[int]:
    """The training iteration (0-based) from which a warm-up scheduler gives
    its full learning rate.

    Args:
        scheduler: A built parameter scheduler.
        epoch_length (int, optional): Iterations per epoch (for
            ``by_epoch`` schedulers; None when the loader has no length).

    Returns:
        int | None: The iteration, or None when ``scheduler`` is not a
        learning-rate warm-up (``LinearLR`` rising to its ``end_factor``,
        ``RunShareWarmupLR``, ``NoamLR``, ``BertWarmupLR``), or counts
        epochs of a loader without a length.
    """
    step = None  # in the scheduler's unit
    if getattr(scheduler, 'param_name', 'lr') != 'lr':
        return None
    if isinstance(scheduler, LinearParamScheduler) and \
            scheduler.start_factor < scheduler.end_factor:
        step = scheduler.end - 1
    elif isinstance(scheduler, NoamLR):
        step = scheduler.begin + scheduler.warmup - 1
    elif isinstance(scheduler, BertWarmupLR) and scheduler.warmup > 0:
        step = scheduler.begin + math.ceil(scheduler.warmup *
                                           scheduler.total_steps)
    if step is None or not scheduler.by_epoch:
        return step
    return None if epoch_length is None else step * epoch_length


def warmups_cut_short(schedulers, max_iters: int,
                      epoch_length: Optional[int]) -> List[Tuple[object, int]]:
    """The warm-up schedulers whose peak lies at or after ``max_iters``.

    Args:
        schedulers (list | dict): The runner's ``param_schedulers`` (a list,
            or a dict of lists for several optimizers).
        max_iters (int): Iterations of the run.
        epoch_length (int, optional): Iterations per epoch.

    Returns:
        list[tuple]: ``(scheduler, peak iteration)`` pairs.
    """
    if isinstance(schedulers, dict):
        schedulers = [s for group in schedulers.values() for s in group]
    peaks = [(s, warmup_peak_iteration(s, epoch_length))
             for s in schedulers or []]
    return [(s, peak) for s, peak in peaks
            if peak is not None and peak >= max_iters]


@HOOKS.register_module()
class WarmupPeakHook(Hook):
    """Log a warning when the run ends before a learning-rate warm-up
    reaches its full rate: a small data set with a warm-up of a fixed number
    of iterations trains at a fraction of the configured rate throughout.

    Checked once, before training, from the schedulers the Runner built;
    the warning names the scheduler, its peak iteration and the run's
    iterations (``docs/new_dataset.md``: the epochs a data set needs).
    """

    priority = 'LOW'

    def before_train(self, runner) -> None:
        try:
            epoch_length = len(runner.train_dataloader)
        except TypeError:  # a sampler without a length
            epoch_length = None
        for scheduler, peak in warmups_cut_short(
                runner.param_schedulers, runner.max_iters, epoch_length):
            print_log(
                f'{type(scheduler).__name__}: the run ends after '
                f'{runner.max_iters} iterations '
                f'({epoch_length or "?"} per epoch), '
                f'before its warm-up reaches the configured learning rate at '
                f'iteration {peak + 1}: the whole run trains below the '
                'configured rate. Train more epochs (train_cfg.max_epochs) '
                'or shorten the warm-up (docs/new_dataset.md, "Epochs for a '
                'small data set").',
                logger='current', level=logging.WARNING)
