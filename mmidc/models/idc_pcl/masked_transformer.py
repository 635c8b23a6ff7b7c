"""IDC-PCL's Transformer stack (pre-norm layers with an attention mask and a
key/value cache, then a LayerNorm), shared by its single-image, pair and
cross-modal encoders."""
from typing import List, Optional

import torch
from mmengine.model import BaseModule
from torch import nn

from ..layers.transformer_layers import EncoderLayer, bert_init_

__all__ = ['MaskedTransformer', 'ImageTokenEncoder']


class MaskedTransformer(nn.Module):
    """A stack of pre-norm :class:`EncoderLayer` and a final LayerNorm.

    Args:
        dim (int): Token width.
        num_layers (int): Layers (>= 1).
        num_heads (int): Attention heads.
        ffn_ratio (int): Feed-forward width / ``dim``.
        dropout (float): Dropout.
    """

    def __init__(self, dim: int, num_layers: int, num_heads: int,
                 ffn_ratio: int = 4, dropout: float = 0.0):
        super().__init__()
        if num_layers < 1:
            raise ValueError(f'num_layers must be >= 1, got {num_layers}')
        self.layers = nn.ModuleList(
            EncoderLayer(dim, num_heads, ffn_ratio * dim, dropout)
            for _ in range(num_layers))
        self.ln_out = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
                caches: Optional[List[dict]] = None) -> torch.Tensor:
        """``[B, t, C]`` -> ``[B, t, C]``. ``attn_mask``: see
        :meth:`EncoderLayer.forward`; ``caches``: one dict per layer, the
        keys/values of earlier tokens, extended with the new ones."""
        for i, layer in enumerate(self.layers):
            x = layer(x, attn_mask, None if caches is None else caches[i])
        return self.ln_out(x)


class ImageTokenEncoder(BaseModule):
    """A :class:`MaskedTransformer` over image tokens ``[B, 2, N + 1, H]``:
    the base of ``F_sing`` and ``F_pair``, which differ in what attends to
    what (see their ``forward``).

    Args:
        hidden (int): Token width; the algorithms set it.
        num_layers (int): Layers. Defaults to 1 (the published model's).
        num_heads (int): Attention heads. Defaults to 8.
        ffn_ratio (int): Feed-forward width / ``hidden``. Defaults to 4.
        dropout (float): Dropout. Defaults to 0.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self, hidden: int, num_layers: int = 1, num_heads: int = 8,
                 ffn_ratio: int = 4, dropout: float = 0.0,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        self.transformer = MaskedTransformer(hidden, num_layers, num_heads,
                                             ffn_ratio, dropout)
        bert_init_(self)
