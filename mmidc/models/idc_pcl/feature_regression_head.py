"""MVCL's regressor: a cross-modal output -> the image feature space."""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['FeatureRegressionHead']


@MODELS.register_module()
class FeatureRegressionHead(nn.Module):
    """``Linear(H, H), GELU, LayerNorm``, then a map to the ``C`` feature
    dimensions: its own ``Linear(H, C)``, or with ``tied=True`` the token
    embedding's feature projection transposed plus a bias of its own, as
    the published IDC-PCL code's ``RegionFeatureRegression`` does.

    Args:
        hidden (int): ``H``.
        feature_dim (int): ``C``.
        tied (bool): Share the projection's weight. Defaults to False.
        projection (nn.Linear, optional): The ``C -> H`` feature projection
            (``IDCPCLPretrainer`` passes its token embedding's when
            ``tied``).
    """

    def __init__(self, hidden: int, feature_dim: int, tied: bool = False,
                 projection: Optional[nn.Linear] = None):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.LayerNorm(hidden))
        self.tied = tied
        if tied:
            if projection is None or tuple(projection.weight.shape) != (hidden, feature_dim):
                raise ValueError(f'FeatureRegressionHead(tied=True) needs the '
                                 f'{feature_dim} -> {hidden} feature projection')
            self.weight = projection.weight  # shared: [H, C]
            self.bias = nn.Parameter(torch.zeros(feature_dim))
        else:
            self.out = nn.Linear(hidden, feature_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``[..., H]`` -> ``[..., C]``."""
        h = self.net(x)
        if self.tied:
            return F.linear(h, self.weight.t(), self.bias)
        return self.out(h)
