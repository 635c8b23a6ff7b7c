"""The Transformer layers of every model: multi-head attention, the
feed-forward block, and encoder and decoder layers whose sub-layers are
pre-norm (``x + drop(f(LN(x)))``) or post-norm (``LN(x + drop(f(x)))``),
with an attention mask and a key/value cache.

A layer's cache is a dict of batch-first keys and values ``k``, ``v``
``[B, h, T, C/h]`` (:func:`~mmidc.models.generation.generation.extend_cache`
appends a step's), the layout :class:`CaptionGenerator` reorders.
"""
from typing import Callable, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn

from ..generation.generation import extend_cache

__all__ = ['MultiheadAttention', 'FeedForward', 'EncoderLayer', 'DecoderLayer',
           'bert_init_', 'upgrade_fused_qkv']

KeyValue = Tuple[torch.Tensor, torch.Tensor]
NORMS = ('pre', 'post')


class MultiheadAttention(nn.Module):
    """Multi-head scaled dot-product attention with separate query and
    key/value inputs (``q_proj``; ``kv_proj``, keys then values; ``out_proj``).

    Args:
        dim (int): Width (divisible by ``num_heads``).
        num_heads (int): Attention heads.
        dropout (float): Dropout on the attention weights. Defaults to 0.
    """

    def __init__(self, dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        if dim % num_heads:
            raise ValueError(f'width {dim} must be divisible by num_heads '
                             f'{num_heads}')
        self.num_heads = num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(dim, dim)
        self.kv_proj = nn.Linear(dim, 2 * dim)
        self.out_proj = nn.Linear(dim, dim)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        # [B, T, C] -> [B, h, T, C/h]
        return x.view(B, T, self.num_heads, C // self.num_heads).transpose(1, 2)

    def key_value(self, x: torch.Tensor,
                  cache: Optional[dict] = None) -> KeyValue:
        """Keys and values of ``x`` ``[B, t, C]``, each ``[B, h, T, C/h]``:
        with ``cache`` those of earlier positions come first and the new ones
        are appended to it (``T`` = cached + ``t``)."""
        k, v = self.kv_proj(x).chunk(2, dim=-1)  # 2 x [B, t, C]
        k, v = self.split_heads(k), self.split_heads(v)  # 2 x [B, h, t, C/h]
        if cache is None:
            return k, v
        return extend_cache(cache, k, v)  # 2 x [B, h, T, C/h]

    def forward(self, x: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                attn_mask: Optional[torch.Tensor] = None,
                is_causal: bool = False) -> torch.Tensor:
        """Queries of ``x`` ``[B, Tq, C]`` against keys/values
        ``[B, h, Tk, C/h]`` -> ``[B, Tq, C]``. ``attn_mask``: bool
        ``[B or 1, 1, Tq, Tk]``, True where a query may attend."""
        q = self.split_heads(self.q_proj(x))  # [B, h, Tq, C/h]
        y = F.scaled_dot_product_attention(
            q, k.to(q.dtype), v.to(q.dtype), attn_mask=attn_mask,
            is_causal=is_causal,
            dropout_p=self.dropout if self.training else 0.0)  # [B, h, Tq, C/h]
        B, _, Tq, _ = y.shape
        y = y.transpose(1, 2).reshape(B, Tq, -1)  # [B, Tq, C]
        return self.out_proj(y)


class FeedForward(nn.Sequential):
    """``Linear(dim, hidden)``, GELU, optionally dropout, ``Linear(hidden,
    dim)``.

    Args:
        dim (int): Width.
        hidden (int): Inner width.
        dropout (float, optional): Dropout between the two projections;
            None: no dropout there (BERT's).
    """

    def __init__(self, dim: int, hidden: int, dropout: Optional[float] = None):
        inner = [] if dropout is None else [nn.Dropout(dropout)]
        super().__init__(nn.Linear(dim, hidden), nn.GELU(), *inner,
                         nn.Linear(hidden, dim))


class _ResidualLayer(nn.Module):
    """What both layers share: their sub-layers, the attentions named in
    ``attentions`` and then the feed-forward (``ffn``), each with its
    LayerNorm; the residual sub-layer with its norm placed as ``norm`` says;
    and the registration of the sub-layers in the order they run (the order
    of the checkpoint's and optimizer state's parameters).

    Args: those of :class:`EncoderLayer`.
    """

    #: (attention, its LayerNorm) names, in the order they run
    attentions: Tuple[Tuple[str, str], ...] = ()

    def __init__(self, dim: int, num_heads: int, ffn_dim: int,
                 dropout: float = 0.0, norm: str = 'pre', eps: float = 1e-5,
                 ffn_dropout: bool = True):
        super().__init__()
        if norm not in NORMS:
            raise ValueError(f'norm must be one of {NORMS}, got {norm!r}')
        self.norm = norm
        modules = {}
        for attn, ln in self.attentions:
            modules[attn] = MultiheadAttention(dim, num_heads, dropout)
            modules[ln] = nn.LayerNorm(dim, eps=eps)
        modules['ffn'] = FeedForward(dim, ffn_dim,
                                     dropout if ffn_dropout else None)
        modules['ln_ffn'] = nn.LayerNorm(dim, eps=eps)
        for sublayer, ln in self.attentions + (('ffn', 'ln_ffn'), ):
            order = (ln, sublayer) if norm == 'pre' else (sublayer, ln)
            for name in order:
                self.add_module(name, modules[name])
        self.drop = nn.Dropout(dropout)

    def residual(self, x: torch.Tensor, ln: nn.Module,
                 sublayer: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        if self.norm == 'pre':
            return x + self.drop(sublayer(ln(x)))
        return ln(x + self.drop(sublayer(x)))


class EncoderLayer(_ResidualLayer):
    """Self-attention and feed-forward sub-layers (``attn``, ``ln_attn``,
    ``ffn``, ``ln_ffn``). The keys of IDC-PCL's earlier fused layout load
    too (:func:`upgrade_fused_qkv`).

    Args:
        dim (int): Width.
        num_heads (int): Attention heads.
        ffn_dim (int): Feed-forward inner width.
        dropout (float): Dropout on the attention weights and the residual
            branches (and inside the feed-forward, see ``ffn_dropout``).
            Defaults to 0.
        norm (str): ``'pre'`` or ``'post'`` (see the module doc). Defaults
            to ``'pre'``.
        eps (float): LayerNorm epsilon. Defaults to 1e-5.
        ffn_dropout (bool): Dropout between the feed-forward's projections.
            Defaults to True.
    """

    attentions = (('attn', 'ln_attn'), )

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        _split_fused_qkv(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None,
                cache: Optional[dict] = None) -> torch.Tensor:
        """``[B, t, C]`` -> ``[B, t, C]``. ``attn_mask``: bool
        ``[B or 1, 1, t, P + t]`` (``P`` cached keys first), True where a
        query may attend; None: every key. ``cache``: the keys/values of
        earlier tokens, extended with the new ones."""
        def attend(h):
            return self.attn(h, *self.attn.key_value(h, cache), attn_mask)

        x = self.residual(x, self.ln_attn, attend)
        return self.residual(x, self.ln_ffn, self.ffn)


class DecoderLayer(_ResidualLayer):
    """Causal self-attention, cross-attention and feed-forward sub-layers
    (``self_attn``, ``ln_self``, ``cross_attn``, ``ln_cross``, ``ffn``,
    ``ln_ffn``).

    Args: those of :class:`EncoderLayer`.
    """

    attentions = (('self_attn', 'ln_self'), ('cross_attn', 'ln_cross'))

    def forward(self, x: torch.Tensor, cross_kv: KeyValue,
                cache: Optional[dict] = None) -> torch.Tensor:
        """``[B, t, C]`` -> ``[B, t, C]``, attending to the memory's keys and
        values ``cross_kv`` (``cross_attn.key_value(memory)``). With
        ``cache`` the self-attention reads the earlier positions from it and
        appends the new ones."""
        causal = x.shape[1] > 1  # one query against the cache needs no mask

        def attend(h):
            return self.self_attn(h, *self.self_attn.key_value(h, cache),
                                  is_causal=causal)

        x = self.residual(x, self.ln_self, attend)
        x = self.residual(x, self.ln_cross,
                          lambda h: self.cross_attn(h, *cross_kv))
        return self.residual(x, self.ln_ffn, self.ffn)


def _split_fused_qkv(state_dict: dict, prefix: str) -> None:
    """What :class:`EncoderLayer` does to a state dict it loads: the keys of
    a layer of the fused layout (``qkv`` and ``out_proj`` directly in the
    layer, IDC-PCL's earlier one) become ``attn.q_proj`` (the first third of
    ``qkv``), ``attn.kv_proj`` and ``attn.out_proj``, in place."""
    if f'{prefix}qkv.weight' not in state_dict:
        return
    for kind in ('weight', 'bias'):
        fused = state_dict.pop(f'{prefix}qkv.{kind}')  # [3C, ...]: q, k, v
        dim = fused.shape[0] // 3
        state_dict[f'{prefix}attn.q_proj.{kind}'] = fused[:dim]
        state_dict[f'{prefix}attn.kv_proj.{kind}'] = fused[dim:]
        state_dict[f'{prefix}attn.out_proj.{kind}'] = state_dict.pop(
            f'{prefix}out_proj.{kind}')


def upgrade_fused_qkv(state_dict: dict) -> dict:
    """A state dict with every fused-layout layer's keys renamed (see
    :func:`_split_fused_qkv`); other keys as they are. Loading into a model
    does this by itself; this is for reading a checkpoint's keys."""
    state_dict = dict(state_dict)
    for key in [k for k in state_dict if k.endswith('qkv.weight')]:
        _split_fused_qkv(state_dict, key[:-len('qkv.weight')])
    return state_dict


def bert_init_(module: nn.Module) -> None:
    """BERT's initialisation, in place: Normal(0, 0.02) for matrices and
    embeddings, zero biases; LayerNorms keep (1, 0)."""
    for name, p in module.named_parameters():
        if p.dim() > 1:
            nn.init.normal_(p, std=0.02)
        elif name.endswith('bias'):
            nn.init.zeros_(p)
