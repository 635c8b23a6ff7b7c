"""F_sing: each image's tokens encoded alone."""
import torch

from mmidc.registry import MODELS
from .masked_transformer import ImageTokenEncoder

__all__ = ['SingleImageEncoder']


@MODELS.register_module()
class SingleImageEncoder(ImageTokenEncoder):
    """IDC-PCL's single-image encoder ``F_sing``: Transformer layers over
    each image's ``[IMGk], v_1 .. v_N`` alone (both images share them).

    Args:
        hidden (int): Token width; the algorithms set it.
        num_layers (int): Layers. Defaults to 1 (the published model's).
        num_heads (int): Attention heads. Defaults to 8.
        ffn_ratio (int): Feed-forward width / ``hidden``. Defaults to 4.
        dropout (float): Dropout. Defaults to 0.
        init_cfg (dict, optional): MMEngine init config.
    """

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``[B, 2, N + 1, H]`` -> ``[B, 2, N + 1, H]``."""
        B, S, T, H = tokens.shape
        x = self.transformer(tokens.reshape(B * S, T, H))  # [2B, N+1, H]
        return x.view(B, S, T, H)
