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
        x = self.transformer(tokens.reshape(B, S * T, H))  # [B, 2(N+1), H]
        return x.view(B, S, T, H)
