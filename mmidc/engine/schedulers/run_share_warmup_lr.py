"""A linear warm-up over a share of the run, at most a fixed number of
steps."""
from mmengine.logging import print_log
from mmengine.optim.scheduler.lr_scheduler import LinearLR
from mmengine.optim.scheduler.param_scheduler import INF

from mmidc.registry import PARAM_SCHEDULERS

__all__ = ['RunShareWarmupLR', 'warmup_steps']


def warmup_steps(run_steps: int, share: float, max_steps: int) -> int:
    """The length of the warm-up of a run of ``run_steps`` steps:
    ``min(max_steps, int(share * run_steps))``, or 0 (no warm-up) when that
    is under 2 steps (a linear warm-up needs a first and a last step).

    Args:
        run_steps (int): Steps of the run (``end - begin``).
        share (float): Largest share of the run spent warming up.
        max_steps (int): Longest warm-up, in steps.

    Returns:
        int: Warm-up steps; the rate is the configured one from the step
        ``warmup - 1`` on (from the first step when 0).
    """
    steps = min(max_steps, int(share * run_steps))
    return steps if steps >= 2 else 0


@PARAM_SCHEDULERS.register_module()
class RunShareWarmupLR(LinearLR):
    """Linear warm-up from ``start_factor`` to 1 over at most ``max_steps``
    steps and at most ``share`` of the run, so a short run (a small data
    set) still trains at its configured rate.

    The run is ``begin`` to ``end``: without ``end`` the Runner ends the
    scheduler at ``train_cfg.max_epochs`` (``by_epoch=True``, the usual way
    with ``convert_to_iter_based=True``: steps are then iterations) or
    ``max_iters``. A run of ``T`` steps warms up over
    ``min(max_steps, int(share * T))`` steps (:func:`warmup_steps`); under 2
    steps it does not warm up at all. With ``T * share >= max_steps`` it is
    ``LinearLR(start_factor, begin, end=begin + max_steps)`` exactly.

    Args:
        optimizer (Optimizer | OptimWrapper): The optimizer.
        start_factor (float): Factor of the first step, in ``[0, 1]``.
            Defaults to 0.02.
        share (float): Largest share of the run spent warming up, in
            ``(0, 1]``. Defaults to 0.05.
        max_steps (int): Longest warm-up, in steps (iterations when built
            with ``convert_to_iter_based=True``). Defaults to 50.
        begin (int): First step. Defaults to 0.
        end (int): Last step of the run, exclusive (finite; the Runner
            fills in the run's end when it is left out).
        last_step (int): For resuming without a state dict. Defaults to -1.
        by_epoch (bool): Steps are epochs. Defaults to True.
        verbose (bool): Print each update. Defaults to False.
    """

    def __init__(self,
                 optimizer,
                 start_factor: float = 0.02,
                 share: float = 0.05,
                 max_steps: int = 50,
                 begin: int = 0,
                 end: int = INF,
                 last_step: int = -1,
                 by_epoch: bool = True,
                 verbose: bool = False):
        if not 0.0 < share <= 1.0:
            raise ValueError(f'RunShareWarmupLR: share must be in (0, 1], '
                             f'got {share}')
        if int(max_steps) != max_steps or max_steps < 0:
            raise ValueError(f'RunShareWarmupLR: max_steps must be a '
                             f'non-negative integer, got {max_steps}')
        if end == INF:
            raise ValueError(
                'RunShareWarmupLR: end must be given (leave it out of the '
                'config and the Runner sets the end of the run)')
        self.run_steps = end - begin
        self.warmup = warmup_steps(self.run_steps, share, int(max_steps))
        if self.warmup == 0:
            start_factor, warmup_end = 1.0, begin + 2
        else:
            warmup_end = begin + self.warmup
        unit = 'epochs' if by_epoch else 'iterations'
        print_log(
            f'RunShareWarmupLR: a run of {self.run_steps} {unit}, warm-up '
            f'over {self.warmup} (share {share}, at most {max_steps})',
            logger='current')
        super().__init__(optimizer, start_factor=start_factor, end_factor=1.0,
                         begin=begin, end=warmup_end, last_step=last_step,
                         by_epoch=by_epoch, verbose=verbose)
