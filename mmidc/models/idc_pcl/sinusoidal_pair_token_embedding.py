"""The published IDC-PCL code's visual token embedding."""
import math
from typing import Optional

import torch

from mmidc.registry import MODELS
from .pair_token_embedding import PairTokenEmbedding

__all__ = ['SinusoidalPairTokenEmbedding', 'published_sinusoid_table']


def published_sinusoid_table(length: int, dim: int) -> torch.Tensor:
    """The published code's fixed position table ``[length, dim]``:
    ``pe[p, i] = sin(p / 10000^(2i / dim))`` and ``pe[p, i + 1] =
    cos(p / 10000^(2(i + 1) / dim))`` for even ``i`` (its exponents, not
    the Transformer paper's ``i / dim``)."""
    if dim % 2:
        raise ValueError(f'the sinusoid table needs an even width, got {dim}')
    table = torch.zeros(length, dim, dtype=torch.float64)
    for i in range(0, dim, 2):
        for pos in range(length):
            table[pos, i] = math.sin(pos / 10000 ** (2 * i / dim))
            table[pos, i + 1] = math.cos(pos / 10000 ** (2 * (i + 1) / dim))
    return table.float()


@MODELS.register_module()
class SinusoidalPairTokenEmbedding(PairTokenEmbedding):
    """:class:`PairTokenEmbedding` as the published IDC-PCL code builds it:
    ``v_i = sigmoid(proj(feature_i)) + pe[i - 1] + type_k`` for the grid
    features (``pe``: the fixed :func:`published_sinusoid_table`, positions
    from 0; ``type_k``: a learned embedding of image ``k``) and ``[IMGk] =
    token_k + cls_type_k`` (learned, no position), then LayerNorm and
    dropout. Use it in both stages' configs (``token_embedding=dict(
    type='SinusoidalPairTokenEmbedding')``): the captioner loads the
    pre-trainer's.

    Args: see :class:`PairTokenEmbedding`.
    """

    def __init__(self, feature_dim: int, hidden: int, max_tokens: int,
                 dropout: float = 0.0, init_cfg: Optional[dict] = None):
        super().__init__(feature_dim, hidden, max_tokens, dropout, init_cfg)
        del self.position  # fixed instead
        self.register_buffer('sinusoid',
                             published_sinusoid_table(max_tokens, hidden),
                             persistent=False)
        # the published type embeddings of [IMG1] and [IMG2] ('cls' types)
        self.image_token_type = torch.nn.Parameter(torch.zeros(2, hidden))
        torch.nn.init.normal_(self.image_token_type, std=0.02)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """``[B, 2, N, C]`` -> ``[B, 2, N + 1, H]``."""
        B, _, N, _ = features.shape
        if N > self.max_tokens:
            raise ValueError(f'{N} feature positions per image exceed '
                             f'max_tokens={self.max_tokens}')
        x = torch.sigmoid(self.proj(features))  # [B, 2, N, H]
        x = x + self.sinusoid[:N].to(x.dtype) + self.image_embed[:, None]
        tokens = (self.image_token + self.image_token_type)[None, :, None]
        x = torch.cat([tokens.expand(B, -1, -1, -1).to(x.dtype), x], dim=2)
        return self.drop(self.ln(x))  # [B, 2, N+1, H]
