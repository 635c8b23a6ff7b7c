import math

import pytest
import torch

from mmidc.models.losses import MaskedVisualContrastiveLoss


def cos(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a)) / math.sqrt(sum(y * y for y in b))


def test_matches_hand_computation():
    P = [[1.0, 0.0], [1.0, 1.0]]       # predictions at 2 masked positions
    T = [[2.0, 0.5], [0.0, 1.0]]       # their original features
    N = [[-1.0, 0.0], [0.5, 2.0], [3.0, -1.0]]  # unmasked features
    tau = 0.5
    expected = 0.0
    for i, p in enumerate(P):
        scores = [cos(p, c) / tau for c in T + N]  # own original at index i
        expected -= scores[i] - math.log(sum(math.exp(s) for s in scores))
    expected /= len(P)
    loss = MaskedVisualContrastiveLoss(temperature=tau)(
        torch.tensor(P), torch.tensor(T), torch.tensor(N))
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_perfect_reconstruction_beats_a_wrong_one():
    loss = MaskedVisualContrastiveLoss(temperature=0.1)
    T = torch.eye(4)[:2]
    N = torch.eye(4)[2:]
    assert loss(T.clone(), T, N) < loss(T.flip(0), T, N)


def test_no_masked_position_and_bad_input():
    loss = MaskedVisualContrastiveLoss()
    assert loss(torch.zeros(0, 3), torch.zeros(0, 3), torch.ones(2, 3)).item() == 0.0
    with pytest.raises(ValueError, match='differ in shape'):
        loss(torch.zeros(2, 3), torch.zeros(3, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match='temperature'):
        MaskedVisualContrastiveLoss(temperature=0)


def test_left_out_negatives_match_hand_computation():
    P = [[1.0, 0.0], [1.0, 1.0]]
    T = [[2.0, 0.5], [0.0, 1.0]]
    N = [[-1.0, 0.0], [0.5, 2.0], [3.0, -1.0]]
    left_out = [[False, True, False], [True, False, False]]
    expected = 0.0
    for i, p in enumerate(P):
        candidates = T + [n for n, out in zip(N, left_out[i]) if not out]
        scores = [cos(p, c) for c in candidates]  # tau1 = 1 by default
        expected -= scores[i] - math.log(sum(math.exp(s) for s in scores))
    expected /= len(P)
    loss = MaskedVisualContrastiveLoss()(torch.tensor(P), torch.tensor(T), torch.tensor(N),
                                         torch.tensor(left_out))
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    with pytest.raises(ValueError, match='negative_mask'):
        MaskedVisualContrastiveLoss()(torch.tensor(P), torch.tensor(T), torch.tensor(N),
                                      torch.tensor(left_out)[:, :2])


def test_negatives_are_the_unmasked_originals():
    features = torch.arange(2 * 2 * 3 * 4, dtype=torch.float).view(2, 2, 3, 4)
    mask = torch.zeros(2, 2, 3, dtype=torch.bool)
    mask[0, 1, 2] = mask[1, 0, 0] = True
    negatives = MaskedVisualContrastiveLoss().negatives(
        features, mask, regress=lambda where: pytest.fail('not a regression'))
    assert torch.equal(negatives, features[~mask])  # [10, 4], in order


def test_negative_mask_marks_each_counterpart():
    mask = torch.zeros(2, 2, 3, dtype=torch.bool)  # [B, 2, N]
    mask[0, 1, 2] = mask[1, 0, 0] = mask[1, 0, 1] = True
    assert MaskedVisualContrastiveLoss().negative_mask(mask) is None
    left_out = MaskedVisualContrastiveLoss(exclude_counterpart=True).negative_mask(mask)
    assert left_out.shape == (3, 9) and (left_out.sum(1) == 1).all()
    unmasked = (~mask).nonzero().tolist()  # the negatives' positions, in order
    for (b, i, n), row in zip(mask.nonzero().tolist(), left_out):
        assert unmasked[int(row.nonzero())] == [b, 1 - i, n]
    both = mask.clone()
    both[0, 0, 2] = True  # both images masked at one grid position
    with pytest.raises(ValueError, match='unmasked'):
        MaskedVisualContrastiveLoss(exclude_counterpart=True).negative_mask(both)
