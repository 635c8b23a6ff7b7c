"""NonFiniteLossHook: a non-finite loss stops training at the next check,
naming its iteration; a model with a non-finite weight is never saved (a
whole run: tests/test_faults/test_nonfinite_loss.py)."""
from types import SimpleNamespace

import pytest
import torch

from mmidc.engine import NonFiniteLossError, NonFiniteLossHook


def test_a_nan_loss_is_reported_at_the_check_with_its_iteration():
    hook = NonFiniteLossHook(interval=3)
    runner = SimpleNamespace(iter=0, epoch=0, train_dataloader=list(range(10)),
                             optim_wrapper=None)
    losses = [1.0, float('nan'), 2.0]
    for i, loss in enumerate(losses[:2]):
        runner.iter = i
        hook.after_train_iter(runner, i, outputs=dict(loss=torch.tensor(loss),
                                                      acc=torch.tensor(0.5)))
    runner.iter = 2  # the third iteration: the check
    with pytest.raises(NonFiniteLossError, match='NaN or infinite at iteration 2 '):
        hook.after_train_iter(runner, 2, outputs=dict(loss=torch.tensor(losses[2])))
    hook.after_train_epoch(runner)  # reported once, then cleared
    with pytest.raises(ValueError, match='positive integer'):
        NonFiniteLossHook(interval=0)


def test_a_model_with_a_nan_weight_is_not_saved():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    runner = SimpleNamespace(model=model, iter=7)
    hook = NonFiniteLossHook(interval=1)
    hook.before_save_checkpoint(runner, {})  # finite: fine
    with torch.no_grad():
        model[1].bias.fill_(float('inf'))
    with pytest.raises(NonFiniteLossError, match=r'1 weight.*1\.bias'):
        hook.before_save_checkpoint(runner, {})
