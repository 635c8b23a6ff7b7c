"""FeatureRegressionHead: MVCL's regressor to the image feature space."""
import pytest
import torch
from torch import nn

from mmidc.models.idc_pcl import FeatureRegressionHead


def test_own_projection_maps_hidden_to_features():
    torch.manual_seed(0)
    head = FeatureRegressionHead(hidden=8, feature_dim=5)
    x = torch.randn(2, 3, 8)
    assert head(x).shape == (2, 3, 5)
    assert not hasattr(head, 'weight')
    torch.testing.assert_close(head(x), head.out(head.net(x)))


def test_tied_shares_the_feature_projection_weight():
    torch.manual_seed(0)
    proj = nn.Linear(5, 8)  # C -> H
    head = FeatureRegressionHead(hidden=8, feature_dim=5, tied=True, projection=proj)
    assert head.weight is proj.weight and not hasattr(head, 'out')
    assert head.bias.shape == (5, )
    x = torch.randn(4, 8)
    torch.testing.assert_close(head(x), head.net(x) @ proj.weight + head.bias)
    # a change to the projection is a change to the head
    before = head(x).detach().clone()
    with torch.no_grad():
        proj.weight.add_(1.0)
    assert not torch.allclose(head(x), before)
    head(x).sum().backward()
    assert proj.weight.grad is not None and head.bias.grad is not None


@pytest.mark.parametrize('projection', [None, nn.Linear(8, 5)])
def test_tied_needs_the_c_to_h_projection(projection):
    with pytest.raises(ValueError, match='5 -> 8 feature projection'):
        FeatureRegressionHead(hidden=8, feature_dim=5, tied=True, projection=projection)
