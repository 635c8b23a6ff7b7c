"""PairedSceneCrossEntropyLoss: the change pairs' mean token loss plus the
no-change pairs' (the published code's CLEVR-Change loss)."""
import math

import pytest
import torch

from mmidc.models.losses import (CaptionCrossEntropyLoss,
                                 PairedSceneCrossEntropyLoss)


def hand_token_losses(logits, targets):
    """Per-sample lists of -log p(target) over the non-pad targets."""
    return [[math.log(sum(math.exp(x) for x in logits[b, t].tolist()))
             - logits[b, t, y].item()
             for t, y in enumerate(targets[b].tolist()) if y != 0]
            for b in range(targets.shape[0])]


def test_equals_a_hand_computation():
    # change and no-change pairs alternate, as PairedSceneSampler orders them
    targets = torch.tensor([[3, 4, 5, 6, 0], [7, 8, 0, 0, 0],
                            [3, 9, 5, 0, 0], [7, 2, 8, 1, 0]])
    logits = torch.randn(4, 5, 10)
    rows = hand_token_losses(logits, targets)
    change = [x for r in rows[0::2] for x in r]
    no_change = [x for r in rows[1::2] for x in r]
    expected = sum(change) / len(change) + sum(no_change) / len(no_change)
    loss = PairedSceneCrossEntropyLoss()(logits, targets)
    assert loss.item() == pytest.approx(expected, rel=1e-5)
    # one mean over every token of the batch: not the same
    everything = change + no_change
    mean = CaptionCrossEntropyLoss()(logits, targets)
    assert mean.item() == pytest.approx(sum(everything) / len(everything),
                                        rel=1e-5)
    assert PairedSceneCrossEntropyLoss(loss_weight=0.5)(
        logits, targets).item() == pytest.approx(expected / 2, rel=1e-5)


def test_needs_an_even_batch():
    with pytest.raises(ValueError, match='even batch'):
        PairedSceneCrossEntropyLoss()(torch.randn(3, 2, 4),
                                      torch.ones(3, 2, dtype=torch.long))
