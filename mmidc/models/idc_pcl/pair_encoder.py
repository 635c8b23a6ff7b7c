"""F_pair: the two images' tokens attend to each other."""
import torch

from mmidc.registry import MODELS
from .masked_transformer import ImageTokenEncoder

__all__ = ['PairEncoder']


@MODELS.register_module()
class PairEncoder(ImageTokenEncoder):
    """IDC-PCL's pair encoder ``F_pair``: Transformer layers over the joint
    sequence ``[IMG1, v1, IMG2, v2]`` of both images, so that each token can
    compare itself with the other image (with ``F_sing``, the image
    difference encoder).

    Args: those of :class:`ImageTokenEncoder`.
    """

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``[B, 2, N + 1, H]`` -> ``[B, 2, N + 1, H]``."""
        B, S, T, H = tokens.shape
        x = self.transformer(tokens.reshape(B, S * T, H))  # [B, 2(N+1), H]
        return x.view(B, S, T, H)
