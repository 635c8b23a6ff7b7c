import math

import pytest
import torch

from mmidc.models.losses import MaskedLMLoss


def log_softmax(row, k):
    return row[k] - math.log(sum(math.exp(x) for x in row))


def test_matches_hand_computation_on_masked_positions_only():
    logits = torch.tensor([[[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]],
                           [[0.0, 1.0, 3.0], [1.0, -2.0, 0.0]]])  # [2, 2, 3]
    targets = torch.tensor([[0, -100], [2, 1]])
    expected = -(log_softmax([2.0, 0.0, -1.0], 0) + log_softmax([0.0, 1.0, 3.0], 2)
                 + log_softmax([1.0, -2.0, 0.0], 1)) / 3
    loss = MaskedLMLoss()(logits, targets)
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    assert MaskedLMLoss(loss_weight=0.5)(logits, targets).item() == pytest.approx(expected / 2, rel=1e-6)


def test_no_masked_position_gives_zero_with_gradient():
    logits = torch.randn(2, 3, 5, requires_grad=True)
    loss = MaskedLMLoss()(logits, torch.full((2, 3), -100))
    assert loss.item() == 0.0
    loss.backward()
    assert logits.grad is not None


def test_rejects_bad_label_smoothing():
    with pytest.raises(ValueError, match='label_smoothing'):
        MaskedLMLoss(label_smoothing=1.0)
