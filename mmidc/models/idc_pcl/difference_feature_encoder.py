"""Grid features of both images with their difference appended."""
import torch

from mmidc.registry import MODELS
from .pair_feature_encoder import PairFeatureEncoder

__all__ = ['DifferenceFeatureEncoder']


@MODELS.register_module()
class DifferenceFeatureEncoder(PairFeatureEncoder):
    """:class:`PairFeatureEncoder` whose features also carry the difference
    of the two images at each grid position: ``[B, 2, N, 2C]``, image ``k``'s
    features ``[f_k, f_2 - f_1]``, for models trained from random weights
    (docs/idc_pcl.md).

    Args: as :class:`PairFeatureEncoder` (a backbone is required; a given
    ``feature_dim`` is the backbone's ``C``). ``feature_dim`` is ``2C`` after
    construction.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.backbone is None:
            raise ValueError('DifferenceFeatureEncoder needs a backbone')
        self.feature_dim = 2 * self.feature_dim

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """``[B, 2, 3, H, W]`` -> ``[B, 2, N, 2C]``."""
        features = super().forward(inputs)  # [B, 2, N, C]
        diff = features[:, 1] - features[:, 0]  # [B, N, C]
        diff = diff[:, None].expand_as(features)  # [B, 2, N, C]
        return torch.cat([features, diff], dim=-1)  # [B, 2, N, 2C]
