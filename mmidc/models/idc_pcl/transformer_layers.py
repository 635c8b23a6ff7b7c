"""Pre-LN Transformer layers with an attention mask and a key/value cache,
shared by IDC-PCL's single-image, pair and cross-modal encoders."""
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F
from mmengine.model import BaseModule
from torch import nn

__all__ = ['MaskedTransformerLayer', 'MaskedTransformer', 'ImageTokenEncoder']

KeyValue = Tuple[torch.Tensor, torch.Tensor]


class MaskedTransformerLayer(nn.Module):
    """Pre-LN self-attention + feed-forward block.

    Args:
        dim (int): Token width.
        num_heads (int): Attention heads (``dim`` divisible by it).
        ffn_ratio (int): Feed-forward width / ``dim``.
        dropout (float): Dropout on the attention weights and both residual
            branches.
    """

    def __init__(self, dim: int, num_heads: int, ffn_ratio: int = 4,
                 dropout: float = 0.0):
        super().__init__()
        if dim % num_heads:
            raise ValueError(f'width {dim} must be divisible by num_heads '
                             f'{num_heads}')
        self.num_heads = num_heads
        self.dropout = dropout
        self.ln_attn = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out_proj = nn.Linear(dim, dim)
        self.ln_ffn = nn.LayerNorm(dim)
        self.ffn = nn.Sequential(nn.Linear(dim, ffn_ratio * dim), nn.GELU(),
                                 nn.Dropout(dropout),
                                 nn.Linear(ffn_ratio * dim, dim))
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
                past: Optional[KeyValue] = None) -> Tuple[torch.Tensor, KeyValue]:
        """Args:
            x (Tensor): ``[B, t, C]`` the new tokens.
            attn_mask (Tensor, optional): bool ``[B or 1, 1, t, P + t]``,
                True where a query may attend to a key (``P`` cached keys
                first). None: every token attends to every key.
            past (tuple, optional): cached keys and values ``[B, h, P, C/h]``
                of earlier tokens.

        Returns:
            tuple: the output ``[B, t, C]`` and the keys/values of the ``t``
            new tokens ``[B, h, t, C/h]`` (for a cache).
        """
        B, t, C = x.shape
        h = self.ln_attn(x)
        # [B, t, 3C] -> 3 x [B, h, t, C/h]
        q, k, v = self.qkv(h).view(B, t, 3, self.num_heads,
                                   C // self.num_heads).permute(2, 0, 3, 1, 4)
        new_kv = (k, v)
        if past is not None:
            k = torch.cat([past[0].to(k.dtype), k], dim=2)  # [B, h, P+t, C/h]
            v = torch.cat([past[1].to(v.dtype), v], dim=2)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask,
            dropout_p=self.dropout if self.training else 0.0)  # [B, h, t, C/h]
        y = y.transpose(1, 2).reshape(B, t, C)  # [B, t, C]
        x = x + self.drop(self.out_proj(y))
        x = x + self.drop(self.ffn(self.ln_ffn(x)))
        return x, new_kv


class MaskedTransformer(nn.Module):
    """A stack of :class:`MaskedTransformerLayer` and a final LayerNorm.

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
            MaskedTransformerLayer(dim, num_heads, ffn_ratio, dropout)
            for _ in range(num_layers))
        self.ln_out = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
                past: Optional[List[KeyValue]] = None
                ) -> Tuple[torch.Tensor, List[KeyValue]]:
        """``[B, t, C]`` -> ``[B, t, C]`` and each layer's new keys/values
        (see :meth:`MaskedTransformerLayer.forward`; ``past`` is one entry
        per layer)."""
        new_kv = []
        for i, layer in enumerate(self.layers):
            x, kv = layer(x, attn_mask, None if past is None else past[i])
            new_kv.append(kv)
        return self.ln_out(x), new_kv


def init_weights(module: nn.Module) -> None:
    """Normal(0, 0.02) for matrices and embeddings, zero biases, LayerNorms
    at (1, 0): BERT's initialisation."""
    for name, p in module.named_parameters():
        if p.dim() > 1:
            nn.init.normal_(p, std=0.02)
        elif name.endswith('bias'):
            nn.init.zeros_(p)


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
        init_weights(self)
