"""Linear warm-up, then inverse square-root decay (the "Noam" schedule)."""
import math

from mmengine.optim.scheduler.lr_scheduler import LRSchedulerMixin
from mmengine.optim.scheduler.param_scheduler import INF, _ParamScheduler

from mmidc.registry import PARAM_SCHEDULERS

__all__ = ['NoamLR', 'noam_factor']


def noam_factor(step: int, warmup: int) -> float:
    """``step / warmup`` up to ``warmup``, then ``sqrt(warmup / step)``
    (``step`` counted from 1)."""
    if step <= warmup:
        return step / warmup
    return math.sqrt(warmup / step)


@PARAM_SCHEDULERS.register_module()
class NoamLR(LRSchedulerMixin, _ParamScheduler):
    """The published IDC-PCL pre-training schedule: iteration ``k`` (from 0,
    counted from ``begin``) trains with ``base_lr * noam_factor(k + 1,
    warmup)``: a linear warm-up to ``base_lr`` over ``warmup`` steps, then
    decay with the inverse square root of the step. Use it alone, not
    chained with another warm-up.

    Args:
        optimizer (Optimizer | OptimWrapper): The optimizer.
        warmup (int): Warm-up steps (> 0).
        begin (int): First step. Defaults to 0.
        end (int): Step after which the schedule stops. Defaults to INF.
        last_step (int): For resuming without a state dict. Defaults to -1.
        by_epoch (bool): Steps are epochs. Defaults to False.
        verbose (bool): Print each update. Defaults to False.
    """

    def __init__(self, optimizer, warmup: int, begin: int = 0, end: int = INF,
                 last_step: int = -1, by_epoch: bool = False,
                 verbose: bool = False):
        if warmup <= 0:
            raise ValueError(f'NoamLR: warmup must be > 0, got {warmup}')
        self.warmup = warmup
        super().__init__(optimizer, begin=begin, end=end, last_step=last_step,
                         by_epoch=by_epoch, verbose=verbose)

    def _get_value(self):
        factor = noam_factor(self.last_step + 1, self.warmup)
        return [base * factor for base in self.base_values]
