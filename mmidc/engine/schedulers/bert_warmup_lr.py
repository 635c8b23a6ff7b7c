"""The warmup schedules of BERT's optimizer as an MMEngine LR scheduler."""
import math

from mmengine.optim.scheduler.lr_scheduler import LRSchedulerMixin
from mmengine.optim.scheduler.param_scheduler import INF, _ParamScheduler

from mmidc.registry import PARAM_SCHEDULERS

__all__ = ['BertWarmupLR', 'bert_warmup_factor']

SCHEDULES = ('warmup_cosine', 'warmup_linear', 'warmup_constant')


def bert_warmup_factor(progress: float, warmup: float, schedule: str) -> float:
    """The learning-rate factor at ``progress`` (step / total steps).

    Linear warmup from 0 to 1 over the first ``warmup`` fraction, then:

    - ``'warmup_cosine'``: ``0.5 * (1 + cos(pi * progress))``. The cosine is
      of the whole run's progress, not restarted after the warmup: it starts
      at ``0.5 * (1 + cos(pi * warmup))`` (0.976 for ``warmup=0.1``) and
      reaches 0 at the end.
    - ``'warmup_linear'``: ``(1 - progress) / (1 - warmup)``, from 1 down to
      0 at the end (never below 0).
    - ``'warmup_constant'``: 1.
    """
    if progress < warmup:
        return progress / warmup
    if schedule == 'warmup_cosine':
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    if schedule == 'warmup_linear':
        return max((progress - 1.0) / (warmup - 1.0), 0.0)
    return 1.0


@PARAM_SCHEDULERS.register_module()
class BertWarmupLR(LRSchedulerMixin, _ParamScheduler):
    """BERT's warmup schedules (``BertAdam``'s ``schedule`` argument).

    Iteration ``k`` of ``T = end - begin`` (counted from ``begin``) trains
    with ``lr = base_lr * factor(k / T)`` (:func:`bert_warmup_factor`), so
    the very first iteration has ``lr = 0`` when ``warmup > 0``. Give
    ``begin``/``end`` in epochs with ``convert_to_iter_based=True`` to
    schedule per iteration over a run of ``end`` epochs (BERT's
    ``t_total``).

    Args:
        optimizer (Optimizer | OptimWrapper): The optimizer.
        schedule (str): ``'warmup_cosine'``, ``'warmup_linear'`` or
            ``'warmup_constant'``. Defaults to ``'warmup_linear'``.
        warmup (float): Fraction of the steps spent warming up, in
            ``[0, 1)``. Defaults to 0.1.
        begin (int): First step. Defaults to 0.
        end (int): Step at which the schedule ends (finite). Required.
        last_step (int): For resuming without a state dict. Defaults to -1.
        by_epoch (bool): Steps are epochs. Defaults to True.
        verbose (bool): Print each update. Defaults to False.
    """

    def __init__(self,
                 optimizer,
                 schedule: str = 'warmup_linear',
                 warmup: float = 0.1,
                 begin: int = 0,
                 end: int = INF,
                 last_step: int = -1,
                 by_epoch: bool = True,
                 verbose: bool = False):
        if schedule not in SCHEDULES:
            raise ValueError(f'BertWarmupLR: schedule must be one of '
                             f'{", ".join(SCHEDULES)}, got {schedule!r}')
        if not 0.0 <= warmup < 1.0:
            raise ValueError(f'BertWarmupLR: warmup must be in [0, 1), got '
                             f'{warmup}')
        if end == INF:
            raise ValueError('BertWarmupLR: end must be given (the last '
                             'epoch or iteration of the run)')
        self.schedule = schedule
        self.warmup = warmup
        self.total_steps = end - begin
        super().__init__(optimizer, begin=begin, end=end,
                         last_step=last_step, by_epoch=by_epoch,
                         verbose=verbose)

    @classmethod
    def build_iter_from_epoch(cls, *args, begin=0, end=INF, by_epoch=True,
                              epoch_length=None, **kwargs):
        """Build an iteration-based instance from epochs."""
        if not by_epoch:
            raise ValueError('BertWarmupLR: convert_to_iter_based needs '
                             'by_epoch=True')
        if not epoch_length or epoch_length <= 0:
            raise ValueError(f'BertWarmupLR: epoch_length must be a '
                             f'positive integer, got {epoch_length}')
        begin = int(begin * epoch_length)
        if end != INF:
            end = int(end * epoch_length)
        return cls(*args, begin=begin, end=end, by_epoch=False, **kwargs)

    def _get_value(self):
        factor = bert_warmup_factor(self.last_step / self.total_steps,
                                    self.warmup, self.schedule)
        return [base * factor for base in self.base_values]
