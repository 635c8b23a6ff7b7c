"""ScratchCaptionHead: a captioning Transformer trained from scratch, with
the inputs the from-scratch recipe conditions it on."""
from typing import List, Optional

import torch
from torch import nn

from mmidc.models.heads.base_caption_head import BaseCaptionHead
from mmidc.models.layers import DecoderLayer, EncoderLayer, bert_init_
from mmidc.registry import MODELS
from ..processors.counted_word_prior import counted_bias, prefix_word_counts

__all__ = ['ScratchCaptionHead']


@MODELS.register_module()
class ScratchCaptionHead(BaseCaptionHead):
    """Pre-LN captioning Transformer over the backbone's pair tokens, with its
    own word embeddings (the from-scratch recipe's, docs/from_scratch.md).

    The backbone's tokens are projected to ``hidden`` (when their width
    differs), get a learned positional embedding and a per-segment embedding
    and pass ``num_encoder_layers`` pre-LN encoder layers and a LayerNorm;
    every decoder layer reads the last encoder layer's output by
    cross-attention, and the next-token logits come from a LayerNorm and the
    output matrix tied to the word embedding.

    Two more inputs let other components condition it:

    - ``extra_tokens`` ``[B, E, memory_dim]`` (e.g. a neck's summary tokens)
      join the memory after the backbone's tokens, each with its own learned
      embedding (``num_extra_tokens = E``);
    - ``logit_bias`` ``[B, V]`` (e.g. an auxiliary head's word prior) is added
      to the next-word logits at every position; a counted one ``[B, K, V]``
      gives each word the row of the number of times the caption already
      holds it (:func:`counted_bias`). In decoding the search adds it as a
      logits processor (:class:`WordPrior`, :class:`CountedWordPrior`).

    Args:
        memory_dim (int): width of the backbone tokens (CLIP4IDC: the
            projection width, 512 for ViT-B/32). Projected to ``hidden`` when
            different.
        hidden (int): model width. Defaults to 512.
        num_heads (int): attention heads. Defaults to 8.
        num_encoder_layers (int): encoder layers over the memory. Defaults to 3.
        num_decoder_layers (int): decoder layers. Defaults to 3.
        ffn_ratio (int): feed-forward width / hidden. Defaults to 4.
        dropout (float): dropout everywhere. Defaults to 0.1.
        max_length (int): caption context length (start token included);
            also the decoding limit. Defaults to 32.
        max_memory_tokens (int): size of the learned memory positional
            embedding; the backbone's token count S(n+1) must not exceed it
            (ViT-B/32 at 224 px: 100). Defaults to 100.
        use_memory_pos_embedding (bool): add the learned memory positional
            embedding. Defaults to True.
        use_segment_embedding (bool): add a learned embedding per memory
            segment (the backbone's ``segments``: before / after, and any
            extra segment). Defaults to True.
        num_segments (int): memory segments; the captioner sets it from its
            backbone. Defaults to 2.
        num_extra_tokens (int): ``E``, the number of ``extra_tokens`` the
            head is given (the captioner sets it from its neck). Defaults
            to 0.
        vocab, loss, init_cfg: as in :class:`BaseCaptionHead`. ``loss``
            defaults to ``dict(type='CaptionCrossEntropyLoss')``.
    """

    def __init__(self,
                 memory_dim: int = 512,
                 hidden: int = 512,
                 num_heads: int = 8,
                 num_encoder_layers: int = 3,
                 num_decoder_layers: int = 3,
                 ffn_ratio: int = 4,
                 dropout: float = 0.1,
                 max_length: int = 32,
                 max_memory_tokens: int = 100,
                 use_memory_pos_embedding: bool = True,
                 use_segment_embedding: bool = True,
                 num_segments: int = 2,
                 num_extra_tokens: int = 0,
                 vocab=None,
                 loss: dict = dict(type='CaptionCrossEntropyLoss'),
                 init_cfg: Optional[dict] = None):
        if hidden % num_heads:
            raise ValueError(f'hidden ({hidden}) must be divisible by '
                             f'num_heads ({num_heads})')
        if num_extra_tokens < 0:
            raise ValueError(f'num_extra_tokens must be >= 0, got {num_extra_tokens}')
        super().__init__(max_length, vocab, loss, init_cfg)
        self.memory_dim = memory_dim
        self.max_memory_tokens = max_memory_tokens
        self.memory_proj = (nn.Linear(memory_dim, hidden)
                            if memory_dim != hidden else nn.Identity())
        self.memory_pos = (nn.Parameter(torch.zeros(max_memory_tokens, hidden))
                           if use_memory_pos_embedding else None)
        self.num_segments = num_segments
        self.segment_embed = (nn.Parameter(torch.zeros(num_segments, hidden))
                              if use_segment_embedding else None)
        self.num_extra_tokens = num_extra_tokens
        self.extra_embed = (nn.Parameter(torch.zeros(num_extra_tokens, hidden))
                            if num_extra_tokens else None)
        ffn_dim = ffn_ratio * hidden
        self.encoder = nn.ModuleList(
            EncoderLayer(hidden, num_heads, ffn_dim, dropout)
            for _ in range(num_encoder_layers))
        self.ln_memory = nn.LayerNorm(hidden)
        self.word_embed = nn.Embedding(len(self.vocab), hidden)
        self.word_pos = nn.Parameter(torch.zeros(max_length, hidden))
        self.decoder = nn.ModuleList(
            DecoderLayer(hidden, num_heads, ffn_dim, dropout)
            for _ in range(num_decoder_layers))
        self.ln_out = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(dropout)
        bert_init_(self)

    # ---------------------------------------------------------------- forward
    def encode(self, memory: torch.Tensor,
               extra_tokens: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Backbone tokens ``[B, T, memory_dim]`` (and ``extra_tokens``
        ``[B, E, memory_dim]``) -> encoded ``[B, T (+E), hidden]``."""
        x = self.drop(self.embed_memory(memory, extra_tokens))  # [B, T(+E), H]
        for layer in self.encoder:
            x = layer(x)
        return self.ln_memory(x)

    def embed_memory(self, memory: torch.Tensor,
                     extra_tokens: Optional[torch.Tensor] = None) -> torch.Tensor:
        """The encoder's input ``[B, T (+E), hidden]``: the projected backbone
        tokens with their positional and segment embeddings, then the
        projected extra tokens with theirs."""
        B, T, _ = memory.shape
        if T > self.max_memory_tokens:
            raise ValueError(f'{T} memory tokens exceed max_memory_tokens='
                             f'{self.max_memory_tokens}; raise it in the head config')
        x = self.memory_proj(memory)  # [B, T, H]
        if self.memory_pos is not None:
            x = x + self.memory_pos[:T]
        if self.segment_embed is not None:
            if T % self.num_segments:
                raise ValueError(f'{T} memory tokens do not split into '
                                 f'num_segments={self.num_segments}')
            segment = torch.arange(T, device=x.device) // (T // self.num_segments)  # [T]
            x = x + self.segment_embed[segment]  # [B, T, H]
        if self.extra_embed is not None:
            if extra_tokens is None or extra_tokens.shape[1] != self.num_extra_tokens:
                got = None if extra_tokens is None else tuple(extra_tokens.shape)
                raise ValueError(f'the head expects {self.num_extra_tokens} extra '
                                 f'tokens [B, E, D], got {got}')
            extra = self.memory_proj(extra_tokens) + self.extra_embed  # [B, E, H]
            x = torch.cat([x, extra], dim=1)  # [B, T+E, H]
        elif extra_tokens is not None:
            raise ValueError('extra_tokens given, but the head has '
                             'num_extra_tokens=0')
        return x

    def cross_kv(self, encoded: torch.Tensor) -> List[tuple]:
        """Every decoder layer reads the encoder's output ``[B, T, H]``."""
        return [layer.cross_attn.key_value(encoded) for layer in self.decoder]

    def embed_tokens(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        t = tokens.shape[1]
        x = self.word_embed(tokens) + self.word_pos[start:start + t]  # [B, t, H]
        return self.drop(x)

    def output_logits(self, x: torch.Tensor) -> torch.Tensor:
        x = self.ln_out(x)
        return x @ self.word_embed.weight.to(x.dtype).t()  # [B, t, V], tied

    def teacher_logits(self, memory: torch.Tensor, tokens: torch.Tensor,
                       extra_tokens: Optional[torch.Tensor] = None,
                       logit_bias: Optional[torch.Tensor] = None
                       ) -> torch.Tensor:
        """Teacher-forced logits ``[B, L-1, V]`` for compact ``tokens``
        ``[B, L]``, ``logit_bias`` ``[B, V]`` added at every position (a
        counted ``[B, K, V]`` one by the counts of the words before it)."""
        logits = super().teacher_logits(memory, tokens,
                                        extra_tokens=extra_tokens)
        if logit_bias is None:
            return logits
        if logit_bias.dim() == 2:
            return logits + logit_bias[:, None].to(logits.dtype)  # [B, 1, V] over L-1
        counts = prefix_word_counts(tokens[:, :-1], logits.shape[-1])  # [B, L-1, V]
        return logits + counted_bias(logit_bias, counts).to(logits.dtype)
