"""DeferredRuntimeInfoHook: the training outputs reach the message hub in
their order and with their values, at the logging iterations only."""
from types import SimpleNamespace

import torch
from mmengine.logging import MessageHub

from mmidc.engine import DeferredRuntimeInfoHook


def test_outputs_are_moved_at_the_logging_interval():
    hub = MessageHub.get_instance('test_deferred_runtime_info_hook')
    runner = SimpleNamespace(iter=0, max_iters=10, message_hub=hub,
                             train_dataloader=list(range(10)))
    hook = DeferredRuntimeInfoHook(interval=3)
    losses = [0.5, 0.25, 0.125, 2.0]
    for i, loss in enumerate(losses):
        runner.iter = i
        hook.after_train_iter(runner, i, outputs=dict(loss=torch.tensor(loss)))
        logged = hub.log_scalars.get('train/loss')
        if i < 2:
            assert logged is None  # pending on the device
    assert list(hub.get_scalar('train/loss').data[0]) == losses[:3]
    checkpoint = {}
    hook.before_save_checkpoint(runner, checkpoint)  # the pending fourth too
    assert list(hub.get_scalar('train/loss').data[0]) == losses
    assert 'message_hub' in checkpoint
