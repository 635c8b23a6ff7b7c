"""CaptionCrossEntropyLoss: mean next-token cross-entropy, padding ignored."""
import math

import pytest
import torch

from mmidc.models.losses import CaptionCrossEntropyLoss
from mmidc.registry import MODELS


def hand_mean(logits, targets, ignore):
    terms = [math.log(sum(math.exp(x) for x in logits[b, t].tolist()))
             - logits[b, t, y].item()
             for b in range(targets.shape[0])
             for t, y in enumerate(targets[b].tolist()) if y != ignore]
    return sum(terms) / len(terms)


def test_mean_over_the_tokens_that_count():
    logits = torch.randn(3, 4, 6)
    targets = torch.tensor([[1, 2, 3, 0], [4, 0, 0, 0], [5, 1, 2, 3]])
    loss = MODELS.build(dict(type='CaptionCrossEntropyLoss'))(logits, targets)
    assert loss.item() == pytest.approx(hand_mean(logits, targets, 0), rel=1e-5)
    other = CaptionCrossEntropyLoss(ignore_index=3, loss_weight=2.0)
    assert other(logits, targets).item() == pytest.approx(
        2 * hand_mean(logits, targets, 3), rel=1e-5)


def test_padding_logits_do_not_count():
    logits = torch.randn(2, 3, 5)
    targets = torch.tensor([[1, 2, 0], [3, 0, 0]])
    changed = logits.clone()
    changed[targets == 0] = 100 * torch.randn(3, 5)
    loss = CaptionCrossEntropyLoss()
    assert torch.equal(loss(logits, targets), loss(changed, targets))


def test_label_smoothing():
    logits, targets = torch.randn(2, 3, 5), torch.tensor([[1, 2, 0], [3, 4, 0]])
    plain = CaptionCrossEntropyLoss()(logits, targets)
    smooth = CaptionCrossEntropyLoss(label_smoothing=0.1)(logits, targets)
    assert not torch.isclose(plain, smooth)
    with pytest.raises(ValueError, match='label_smoothing'):
        CaptionCrossEntropyLoss(label_smoothing=1.0)
