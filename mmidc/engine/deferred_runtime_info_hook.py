"""MMEngine's RuntimeInfoHook without a host-device synchronisation per step."""
from collections import defaultdict

import torch
from mmengine.hooks import LoggerHook, RuntimeInfoHook
from mmengine.utils import apply_to

from mmidc.registry import HOOKS


@HOOKS.register_module()
class DeferredRuntimeInfoHook(RuntimeInfoHook):
    """:class:`~mmengine.hooks.RuntimeInfoHook` that reads the losses back
    from the device only when they are logged.

    The stock hook stores every training output (``loss``, ``loss_*``,
    ``accuracy``...) in the message hub after every iteration with
    ``tensor.item()``, which waits for the GPU to finish the step: the host
    cannot prepare the next batch while the GPU computes. This hook keeps
    the outputs as device tensors and moves them into the message hub, in
    their order and with the same values, at the iterations where the
    :class:`~mmengine.hooks.LoggerHook` reads them (every ``interval``
    iterations and at the end of an epoch), before a checkpoint is saved,
    and at the end of training. What the logs and checkpoints hold is
    unchanged; only a hook that reads ``train/<loss>`` from the message hub
    at every iteration would see it up to ``interval - 1`` iterations late.

    Args:
        interval (int, optional): Iterations between reads. Defaults to the
            smallest ``interval`` of the runner's logger hooks (1 without
            one).
    """

    def __init__(self, interval=None):
        self.interval = interval
        self._pending = defaultdict(list)

    def before_train(self, runner) -> None:
        super().before_train(runner)
        if self.interval is None:
            intervals = [h.interval for h in runner.hooks
                         if isinstance(h, LoggerHook)]
            self.interval = min(intervals) if intervals else 1

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        if outputs is not None:
            for key, value in outputs.items():
                if torch.is_tensor(value):
                    value = value.detach()
                self._pending[key].append(value)
        if (self.every_n_inner_iters(batch_idx, self.interval)
                or self.every_n_train_iters(runner, self.interval)
                or self.end_of_epoch(runner.train_dataloader, batch_idx)
                or runner.iter + 1 >= runner.max_iters):
            self.flush(runner)

    def flush(self, runner) -> None:
        """Move the pending outputs into the message hub (one read-back)."""
        for key, values in self._pending.items():
            if all(torch.is_tensor(v) and v.numel() == 1 for v in values):
                values = torch.stack([v.reshape(()) for v in values]).tolist()
            for value in values:
                runner.message_hub.update_scalar(f'train/{key}', value)
        self._pending.clear()

    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        if self._pending:
            self.flush(runner)
            checkpoint['message_hub'] = apply_to(
                runner.message_hub.state_dict(),
                lambda x: hasattr(x, 'cpu'), lambda x: x.cpu())

    def after_train(self, runner) -> None:
        self.flush(runner)
        super().after_train(runner)
