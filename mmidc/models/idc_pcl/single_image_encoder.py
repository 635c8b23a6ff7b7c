"""F_sing: each image's tokens encoded alone."""
import torch

from mmidc.registry import MODELS
from .masked_transformer import ImageTokenEncoder

__all__ = ['SingleImageEncoder']


@MODELS.register_module()
class SingleImageEncoder(ImageTokenEncoder):
    """IDC-PCL's single-image encoder ``F_sing``: Transformer layers over
    each image's ``[IMGk], v_1 .. v_N`` alone (both images share them).

    Args: those of :class:`ImageTokenEncoder`.
    """

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``[B, 2, N + 1, H]`` -> ``[B, 2, N + 1, H]``."""
        B, S, T, H = tokens.shape
        x = self.transformer(tokens.reshape(B * S, T, H))  # [2B, N+1, H]
        return x.view(B, S, T, H)
