"""TransformerCaptionHead: the captioning Transformer trained from scratch.

Encoder over the backbone's pair tokens, decoder over caption tokens, pre-LN
blocks with ``F.scaled_dot_product_attention``. Decoding (greedy, beam) keeps
a key/value cache: the self-attention K/V of every decoder layer grows by one
position per step, the cross-attention K/V of the memory is computed once.
``use_cache=False`` recomputes the decoder over the whole prefix at each step.
"""
from typing import Dict, List, Optional

import torch
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS
from ..utils.caption_vocab import CaptionVocab, build_vocab_from_cfg
from ..utils.generation import CaptionDecodeOutput, CaptionGenerator
from ..utils.transformer_layers import DecoderLayer, EncoderLayer, bert_init_

__all__ = ['TransformerCaptionHead', 'CaptionDecodeOutput']


@MODELS.register_module()
class TransformerCaptionHead(CaptionGenerator, BaseModule):
    """Captioning Transformer over the backbone's pair tokens (CLIP4IDC's).

    The backbone's tokens are projected to ``hidden`` (when their width
    differs), get a learned positional embedding and a per-segment embedding,
    and pass ``num_encoder_layers`` encoder layers; the decoder reads them by
    cross-attention and predicts the next caption token, its output matrix
    tied to the word embedding. Decoding (greedy, beam) is
    :class:`CaptionGenerator`'s, with a key/value cache.

    Two extension points, unused by the paper's configs, let other components
    condition the captioner without changing it:

    - ``extra_tokens`` ``[B, E, memory_dim]`` (e.g. a neck's summary tokens)
      join the memory after the backbone's tokens, each with its own learned
      embedding (``num_extra_tokens = E``).
    - ``logit_bias`` ``[B, V]`` (e.g. an auxiliary head's word prior) is added
      to the next-word logits at every position.

    A variant subclasses it and overrides the building blocks
    (:meth:`build_encoder_layer`, :meth:`build_decoder_layer`,
    :meth:`build_final_norm`), the word input and output
    (:meth:`embed_tokens`, :meth:`output_logits`) or what the decoder reads
    (:meth:`encode`, :meth:`cross_kv`); decoding, the loss and the
    vocabulary are shared (e.g. :class:`BertCaptionHead`).

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
        vocab: output vocabulary: ``None`` (full CLIP BPE, 49,408 ids), a
            file path or ``dict(captions_from=..., cache_file=...)``; see
            :mod:`mmidc.models.utils.caption_vocab`.
        loss (dict): Config of the next-token loss, called with the float
            logits ``[B, L-1, V]`` and the compact target ids ``[B, L-1]``;
            its ``ignore_index`` defaults to the vocabulary's padding id.
            Defaults to ``dict(type='CaptionCrossEntropyLoss')``.
        init_cfg (dict, optional): MMEngine init config.
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
        super().__init__(init_cfg=init_cfg)
        if hidden % num_heads:
            raise ValueError(f'hidden ({hidden}) must be divisible by '
                             f'num_heads ({num_heads})')
        if max_length < 2:
            raise ValueError(f'max_length must be >= 2, got {max_length}')
        if num_extra_tokens < 0:
            raise ValueError(f'num_extra_tokens must be >= 0, got {num_extra_tokens}')
        self.memory_dim = memory_dim
        self.max_length = max_length
        self.max_memory_tokens = max_memory_tokens
        self.vocab: CaptionVocab = build_vocab_from_cfg(vocab)
        loss = dict(loss)
        loss.setdefault('ignore_index', self.vocab.pad_id)
        self.loss_module = MODELS.build(loss)

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
        self.encoder = nn.ModuleList(
            self.build_encoder_layer(hidden, num_heads, ffn_ratio * hidden, dropout)
            for _ in range(num_encoder_layers))
        self.ln_memory = self.build_final_norm(hidden)

        self.word_embed = nn.Embedding(len(self.vocab), hidden)
        self.word_pos = nn.Parameter(torch.zeros(max_length, hidden))
        self.decoder = nn.ModuleList(
            self.build_decoder_layer(hidden, num_heads, ffn_ratio * hidden, dropout)
            for _ in range(num_decoder_layers))
        self.ln_out = self.build_final_norm(hidden)
        self.drop = nn.Dropout(dropout)
        bert_init_(self)

    # ------------------------------------------- building blocks (overridable)
    def build_encoder_layer(self, hidden: int, num_heads: int, ffn_dim: int,
                            dropout: float) -> nn.Module:
        """One encoder layer: ``layer(x)`` maps ``[B, T, H]`` to ``[B, T, H]``."""
        return EncoderLayer(hidden, num_heads, ffn_dim, dropout)

    def build_decoder_layer(self, hidden: int, num_heads: int, ffn_dim: int,
                            dropout: float) -> nn.Module:
        """One decoder layer: ``layer(x, cross_kv, cache)`` (see
        :class:`DecoderLayer`), with a ``cross_attn``
        :class:`MultiheadAttention`."""
        return DecoderLayer(hidden, num_heads, ffn_dim, dropout)

    def build_final_norm(self, hidden: int) -> nn.Module:
        """The norm after the last encoder layer (``ln_memory``) and after the
        last decoder layer (``ln_out``): pre-LN stacks end unnormalised."""
        return nn.LayerNorm(hidden)

    # ---------------------------------------------------------------- forward
    def encode(self, memory: torch.Tensor,
               extra_tokens: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Backbone tokens ``[B, T, memory_dim]`` (and ``extra_tokens``
        ``[B, E, memory_dim]``) -> encoded ``[B, T (+E), hidden]``, what
        :meth:`cross_kv` reads."""
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
        """Cross-attention keys/values of every decoder layer (once per batch)."""
        return [layer.cross_attn.key_value(encoded) for layer in self.decoder]

    def decode_step(self, tokens, cross_kv, caches=None, start: int = 0,
                    logit_bias: Optional[torch.Tensor] = None):
        """Logits for compact ``tokens`` ``[B, t]`` at positions start..start+t.

        Returns ``[B, t, V]``. With ``caches`` (one dict per layer), earlier
        positions come from the caches and ``tokens`` are the new ones only.
        ``logit_bias`` ``[B, V]`` is added at every position.
        """
        x = self.embed_tokens(tokens, start)  # [B, t, H]
        for i, layer in enumerate(self.decoder):
            x = layer(x, cross_kv[i], None if caches is None else caches[i])
        logits = self.output_logits(x)  # [B, t, V]
        if logit_bias is not None:
            logits = logits + logit_bias[:, None].to(logits.dtype)  # [B, 1, V] over t
        return logits

    def embed_tokens(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        """The decoder's input ``[B, t, H]`` for compact ``tokens`` ``[B, t]``
        at positions start..start+t."""
        t = tokens.shape[1]
        x = self.word_embed(tokens) + self.word_pos[start:start + t]  # [B, t, H]
        return self.drop(x)

    def output_logits(self, x: torch.Tensor) -> torch.Tensor:
        """Next-token logits ``[B, t, V]`` from the last decoder layer's
        output ``[B, t, H]``, the output matrix tied to the word embedding."""
        x = self.ln_out(x)
        return x @ self.word_embed.weight.to(x.dtype).t()  # [B, t, V]

    def forward(self, memory: torch.Tensor, text_tokens: torch.Tensor,
                extra_tokens: Optional[torch.Tensor] = None,
                logit_bias: Optional[torch.Tensor] = None):
        """Teacher-forced logits ``[B, L-1, V]`` for CLIP ``text_tokens`` ``[B, L]``."""
        tokens = self.vocab.to_compact(self._check_tokens(text_tokens))
        encoded = self.encode(memory, extra_tokens)
        return self.decode_step(tokens[:, :-1], self.cross_kv(encoded),
                                logit_bias=logit_bias)

    def _check_tokens(self, text_tokens: torch.Tensor) -> torch.Tensor:
        if text_tokens.dim() != 2:
            raise ValueError('text_tokens must be [B, L] (one caption per pair), '
                             f'got shape {tuple(text_tokens.shape)}')
        if text_tokens.shape[1] > self.max_length:
            raise ValueError(f'text_tokens length {text_tokens.shape[1]} exceeds '
                             f'max_length={self.max_length}')
        return text_tokens

    def loss(self, memory: torch.Tensor, text_tokens: torch.Tensor,
             extra_tokens: Optional[torch.Tensor] = None,
             logit_bias: Optional[torch.Tensor] = None) -> Dict:
        """Cross-entropy of the next token, padding ignored.

        Args:
            memory (Tensor): backbone tokens ``[B, T, memory_dim]``.
            text_tokens (Tensor): CLIP ids ``[B, L]``, ``<sot> ... <eot> 0 0``.
            extra_tokens (Tensor, optional): ``[B, E, memory_dim]``.
            logit_bias (Tensor, optional): ``[B, V]``.

        Returns:
            dict: ``loss_caption`` and ``accuracy`` (next-token, non-pad).
        """
        logits = self(memory, text_tokens, extra_tokens, logit_bias)
        return self.loss_from_logits(logits, text_tokens)

    def loss_from_logits(self, logits: torch.Tensor, text_tokens: torch.Tensor) -> Dict:
        """The loss of :meth:`loss` from teacher-forced ``logits`` ``[B, L-1, V]``."""
        logits = logits.float()
        targets = self.vocab.to_compact(text_tokens[:, 1:])  # [B, L-1]
        return dict(loss_caption=self.loss_module(logits, targets),
                    accuracy=self._accuracy(logits, targets))

    def _accuracy(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Next-token accuracy over the non-pad ``targets`` ``[B, L-1]``."""
        valid = targets != self.vocab.pad_id
        # sum / count, not a masked mean: boolean indexing waits for the GPU
        correct = (logits.argmax(-1) == targets) & valid
        return (correct.sum() / valid.sum()).detach()

    # ------------------- decoding (CaptionGenerator's greedy and beam search)
    def start_decoding(self, memory: torch.Tensor, repeat: int, use_cache: bool,
                       extra_tokens=None, logit_bias=None):
        """Start tokens ``[B*repeat, 1]``, the cross-attention keys/values,
        the caches and the logit bias (``[B*repeat, V]`` or None)."""
        encoded = self.encode(memory, extra_tokens)  # [B, T, H] (batch first)
        encoded = encoded.repeat_interleave(repeat, dim=0)  # [B*repeat, T, H]
        prior = None
        if logit_bias is not None:
            prior = logit_bias.repeat_interleave(repeat, dim=0)  # [B*repeat, V]
        cross_kv = self.cross_kv(encoded)
        caches = [dict() for _ in self.decoder] if use_cache else None
        tokens = torch.full((encoded.shape[0], 1), self.vocab.sot_id,
                            dtype=torch.long, device=memory.device)  # [N, 1]
        return tokens, cross_kv, caches, prior

    def next_logits(self, tokens, cross_kv, caches, prior=None):
        """Logits ``[N, V]`` of the position after ``tokens`` ``[N, t]``."""
        if caches is None:  # recompute the decoder over the whole prefix
            return self.decode_step(tokens, cross_kv, logit_bias=prior)[:, -1]
        t = tokens.shape[1]
        return self.decode_step(tokens[:, -1:], cross_kv, caches, start=t - 1,
                                logit_bias=prior)[:, 0]
