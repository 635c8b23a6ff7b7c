import math

import pytest
import torch

from mmidc.models.losses import DifferenceAlignmentLoss


def cos(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a)) / math.sqrt(sum(y * y for y in b))


PAIR = [[[1.0, 0.0], [1.0, 0.2], [0.9, 0.1]],
        [[0.0, 1.0], [0.3, 1.0], [1.0, 1.0]]]  # [B=2, 1+K=3, D=2]
TEXT = [[[1.0, 0.1], [0.0, 1.0], [-1.0, 0.5]],
        [[0.2, 1.0], [1.0, 0.0], [1.0, 1.0]]]


def test_matches_hand_computation():
    tau = 0.2
    expected = 0.0
    for pairs, texts in zip(PAIR, TEXT):
        scores = [cos(p, t) / tau for p, t in zip(pairs, texts)]
        expected -= scores[0] - math.log(sum(math.exp(s) for s in scores))
    expected /= 2
    loss = DifferenceAlignmentLoss(temperature=tau)(torch.tensor(PAIR), torch.tensor(TEXT))
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_invalid_candidates_are_left_out():
    tau = 0.2
    valid = torch.tensor([[True, True, False], [True, True, True]])
    scores0 = [cos(p, t) / tau for p, t in zip(PAIR[0][:2], TEXT[0][:2])]
    scores1 = [cos(p, t) / tau for p, t in zip(PAIR[1], TEXT[1])]
    expected = -sum(s[0] - math.log(sum(math.exp(x) for x in s))
                    for s in (scores0, scores1)) / 2
    loss = DifferenceAlignmentLoss(temperature=tau)(torch.tensor(PAIR), torch.tensor(TEXT), valid)
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    with pytest.raises(ValueError, match='own caption'):
        DifferenceAlignmentLoss()(torch.tensor(PAIR), torch.tensor(TEXT), ~valid)


def test_shared_pair_vector():
    pair = torch.tensor([[1.0, 0.0]])
    text = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    loss = DifferenceAlignmentLoss(temperature=1.0)(pair, text)
    assert loss.item() == pytest.approx(-(1 - math.log(math.exp(1) + math.exp(0))), rel=1e-6)


def test_default_temperature_is_the_published_one():
    # tau2 = 1 (the published code's --tmp)
    expected = 0.0
    for pairs, texts in zip(PAIR, TEXT):
        scores = [cos(p, t) for p, t in zip(pairs, texts)]
        expected -= scores[0] - math.log(sum(math.exp(s) for s in scores))
    expected /= 2
    loss = DifferenceAlignmentLoss()(torch.tensor(PAIR), torch.tensor(TEXT))
    assert loss.item() == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize('batch_size,num_negatives', [(6, 2), (1, 6), (200, 6)])
def test_every_pair_is_read(batch_size, num_negatives):
    assert DifferenceAlignmentLoss().num_pairs(batch_size, num_negatives) == batch_size
