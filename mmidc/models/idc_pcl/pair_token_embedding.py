"""Image features -> the visual tokens of IDC-PCL's transformers."""
from typing import Optional

import torch
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS
from ..layers.transformer_layers import bert_init_

__all__ = ['PairTokenEmbedding']


@MODELS.register_module()
class PairTokenEmbedding(BaseModule):
    """Project grid features to the model width and prepend the image tokens.

    ``[B, 2, N, C]`` features -> ``[B, 2, N + 1, H]`` tokens: per image
    ``[IMGk], v_1 .. v_N`` where ``v_i = proj(feature_i)``, plus a learned
    position embedding (position 0 is the ``[IMGk]`` token) and a learned
    embedding of the image (before / after), then LayerNorm and dropout.

    Args:
        feature_dim (int): ``C``; the algorithms set it from their feature
            encoder.
        hidden (int): ``H``, the transformers' width.
        max_tokens (int): Largest ``N`` (size of the position embedding).
        dropout (float): Dropout on the output. Defaults to 0.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self, feature_dim: int, hidden: int, max_tokens: int,
                 dropout: float = 0.0, init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        self.max_tokens = max_tokens
        self.proj = nn.Linear(feature_dim, hidden)
        self.image_token = nn.Parameter(torch.zeros(2, hidden))  # [IMG1], [IMG2]
        self.position = nn.Parameter(torch.zeros(max_tokens + 1, hidden))
        self.image_embed = nn.Parameter(torch.zeros(2, hidden))  # before / after
        self.ln = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(dropout)
        bert_init_(self)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """``[B, 2, N, C]`` -> ``[B, 2, N + 1, H]``."""
        B, _, N, _ = features.shape
        if N > self.max_tokens:
            raise ValueError(f'{N} feature positions per image exceed '
                             f'max_tokens={self.max_tokens}')
        x = self.proj(features)  # [B, 2, N, H]
        image_token = self.image_token[None, :, None].expand(B, -1, -1, -1)  # [B, 2, 1, H]
        x = torch.cat([image_token.to(x.dtype), x], dim=2)  # [B, 2, N+1, H]
        x = x + self.position[:N + 1] + self.image_embed[:, None]  # [B, 2, N+1, H]
        return self.drop(self.ln(x))
