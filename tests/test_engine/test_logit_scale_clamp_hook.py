"""LogitScaleClampHook: the parameter never exceeds ln 100 after a step."""
import math
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from mmidc.engine import LogitScaleClampHook
from mmidc.models.heads import ContrastiveAdaptationHead

LN100 = math.log(100)


class PairsAndTexts(nn.Module):
    """Features that a larger logit scale always fits better."""

    def __init__(self):
        super().__init__()
        self.head = ContrastiveAdaptationHead()

    def loss(self):
        # cosine 1 with the own caption, 0.977 with the others: at scale
        # 100 the softmax is not saturated, and sharper is still better
        feats = torch.eye(4) + 3 * torch.ones(4, 4)
        tokens = torch.arange(1, 5)[:, None]
        losses = self.head.loss(feats, feats, tokens)
        return losses['loss_p2t'] + losses['loss_t2p']


def test_parameter_never_exceeds_the_bound_after_a_step():
    model = PairsAndTexts()
    with torch.no_grad():
        model.head.logit_scale.fill_(LN100)
    runner = SimpleNamespace(model=model)
    hook = LogitScaleClampHook()
    assert not model.head.clamped_after_step  # clamped in the forward pass
    hook.before_train(runner)
    assert model.head.clamped_after_step  # now by the hook
    optimizer = torch.optim.SGD(model.parameters(), lr=10.0)
    for _ in range(3):
        optimizer.zero_grad()
        model.loss().backward()
        assert model.head.logit_scale.grad.item() < 0  # wants to grow
        optimizer.step()
        assert model.head.logit_scale.item() > LN100  # the step overshoots
        hook.after_train_iter(runner, 0)
        assert model.head.logit_scale.item() == torch.tensor(LN100).item()


def test_a_model_without_a_contrastive_head_is_an_error():
    runner = SimpleNamespace(model=nn.Linear(2, 2))
    with pytest.raises(ValueError, match='no module with clamp_logit_scale_'):
        LogitScaleClampHook().before_train(runner)
