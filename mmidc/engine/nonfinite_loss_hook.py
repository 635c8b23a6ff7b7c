"""Stop training at a non-finite loss; never save a non-finite model."""
import math
from typing import Optional

import torch
from mmengine.hooks import Hook, LoggerHook
from mmengine.model import is_model_wrapper

from mmidc.registry import HOOKS


class NonFiniteLossError(FloatingPointError):
    """The training loss or the model's weights are NaN or infinite."""


@HOOKS.register_module()
class NonFiniteLossHook(Hook):
    """Raise :class:`NonFiniteLossError` when the training loss is NaN or
    infinite, and refuse to save a checkpoint of a model with a non-finite
    weight.

    The policy is to stop: a step with a non-finite loss has already written
    non-finite gradients into the optimizer, so skipping it does not undo
    the damage. The error names the first iteration whose loss was not
    finite, with the usual causes.

    The check reads the loss back from the device without a wait per step:
    whether each step's loss is finite is kept on the device and read
    every ``interval`` iterations, at the end of each epoch (before the
    epoch's checkpoint and validation) and before every checkpoint is
    written. Before a checkpoint is written, every weight of the model is
    checked too, so a non-finite model is never saved, neither as the latest
    nor as the best checkpoint.

    Args:
        interval (int, optional): Iterations between reads. Defaults to the
            smallest ``interval`` of the runner's logger hooks (1 without
            one).
    """

    priority = 'ABOVE_NORMAL'  # before checkpoints are written

    def __init__(self, interval: Optional[int] = None):
        if interval is not None and (not isinstance(interval, int)
                                     or interval < 1):
            raise ValueError(f'NonFiniteLossHook: interval must be a positive '
                             f'integer, got {interval!r}')
        self.interval = interval
        self._pending = []  # (iteration, device bool: all losses finite)

    def before_train(self, runner) -> None:
        if self.interval is None:
            intervals = [h.interval for h in runner.hooks
                         if isinstance(h, LoggerHook)]
            self.interval = min(intervals) if intervals else 1
        self._pending = []

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        losses = [v for k, v in (outputs or {}).items()
                  if k.startswith('loss') and torch.is_tensor(v)]
        if losses:
            finite = torch.stack(
                [torch.isfinite(v.detach()).all() for v in losses]).all()
            self._pending.append((runner.iter + 1, finite))
        if (self.every_n_train_iters(runner, self.interval)
                or self.end_of_epoch(runner.train_dataloader, batch_idx)):
            self.check(runner)

    def after_train_epoch(self, runner) -> None:
        self.check(runner)

    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        self.check(runner)
        model = runner.model.module if is_model_wrapper(
            runner.model) else runner.model
        weights = {name: value for name, value in model.state_dict().items()
                   if value.is_floating_point()}
        if not weights:
            return
        device = next(iter(weights.values())).device
        finite = torch.stack([torch.isfinite(v).all().to(device)
                              for v in weights.values()]).tolist()
        bad = [name for name, ok in zip(weights, finite) if not ok]
        if bad:
            raise NonFiniteLossError(
                f'refusing to save a checkpoint at iteration {runner.iter}: '
                f'{len(bad)} weight(s) of the model are NaN or infinite '
                f'({", ".join(bad[:5])}{", ..." if len(bad) > 5 else ""}). '
                'Lower the learning rate or clip the gradients '
                '(optim_wrapper.clip_grad).')

    def check(self, runner) -> None:
        """Raise if a loss since the start of training was not finite."""
        if not self._pending:
            return
        flags = torch.stack([f for _, f in self._pending]).tolist()
        iters = [i for i, _ in self._pending]
        self._pending = []
        if all(flags):
            return
        first = iters[flags.index(False)]
        lr = _learning_rates(runner)
        raise NonFiniteLossError(
            f'the training loss is NaN or infinite at iteration {first} '
            f'(epoch {runner.epoch + 1}); training stopped and no '
            f'checkpoint of this model is written. Learning rate: {lr}. '
            'Usual causes: a learning rate too high '
            '(optim_wrapper.optimizer.lr), no gradient clipping '
            '(optim_wrapper.clip_grad), fp16 overflow (--amp bf16).')


def _learning_rates(runner) -> str:
    try:
        lrs = runner.optim_wrapper.get_lr()
    except Exception:  # noqa: BLE001  (only for the message)
        return 'unknown'
    values = sorted({v for group in lrs.values() for v in group
                     if isinstance(v, float) and math.isfinite(v)})
    return ', '.join(f'{v:g}' for v in values) or 'unknown'
