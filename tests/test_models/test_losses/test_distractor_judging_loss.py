import math

import pytest
import torch

from mmidc.models.losses import DistractorJudgingLoss


def test_matches_hand_computation_ignoring_unknown_pairs():
    logits = torch.tensor([[0.5, 1.5], [2.0, -1.0], [0.0, 9.0]])
    labels = torch.tensor([1, 0, -100])

    def nll(row, k):
        return -(row[k] - math.log(sum(math.exp(x) for x in row)))

    expected = (nll([0.5, 1.5], 1) + nll([2.0, -1.0], 0)) / 2
    assert DistractorJudgingLoss()(logits, labels).item() == pytest.approx(expected, rel=1e-6)


def test_all_unknown_gives_zero_and_shape_is_checked():
    loss = DistractorJudgingLoss()
    assert loss(torch.randn(2, 2), torch.tensor([-100, -100])).item() == 0.0
    with pytest.raises(ValueError, match=r'\[B, 2\]'):
        loss(torch.randn(2, 3), torch.tensor([0, 1]))
