import math

import pytest
import torch

from mmidc.models.losses import ClassMarginContrastiveLoss


def cos(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a)) / math.sqrt(sum(y * y for y in b))


def test_matches_hand_computation():
    F = [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0], [-1.0, 0.5]]
    y = [0, 0, 1, 2]
    margin = 0.4
    total = 0.0
    for i in range(4):
        for j in range(4):
            c = cos(F[i], F[j])
            total += (1 - c) if y[i] == y[j] else max(0.0, c - margin)
    expected = total / 16
    loss = ClassMarginContrastiveLoss()(torch.tensor(F), torch.tensor(y))
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_one_class_aligned_others_apart_cost_nothing():
    F = torch.tensor([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    assert ClassMarginContrastiveLoss()(F, torch.tensor([0, 0, 1])).item() == \
        pytest.approx(0.0, abs=1e-7)
    with pytest.raises(ValueError, match='labels'):
        ClassMarginContrastiveLoss()(F, torch.tensor([0, 1]))
