import pytest
import torch

from mmidc.models.losses import (MaskedVisualContrastiveLoss,
                                 PredictedNegativeVisualContrastiveLoss)


def test_negatives_are_the_predictions_at_unmasked_positions():
    features = torch.randn(2, 2, 3, 4)
    predicted = torch.randn(2, 2, 3, 4, requires_grad=True)
    mask = torch.zeros(2, 2, 3, dtype=torch.bool)
    mask[0, 1, 2] = mask[1, 0, 0] = True
    loss = PredictedNegativeVisualContrastiveLoss()
    negatives = loss.negatives(features, mask, lambda where: predicted[where])
    assert torch.equal(negatives, predicted[~mask]) and negatives.requires_grad


def test_the_rest_is_mvcl():
    P, T, N = torch.randn(3, 4), torch.randn(3, 4), torch.randn(5, 4)
    left_out = torch.rand(3, 5) > 0.5
    kwargs = dict(temperature=0.3, exclude_counterpart=True, loss_weight=2.0)
    variant = PredictedNegativeVisualContrastiveLoss(**kwargs)
    assert variant(P, T, N, left_out).item() == pytest.approx(
        MaskedVisualContrastiveLoss(**kwargs)(P, T, N, left_out).item(), rel=1e-6)
    mask = torch.zeros(1, 2, 2, dtype=torch.bool)
    mask[0, 0, 1] = True
    assert variant.negative_mask(mask).tolist() == [[False, False, True]]
