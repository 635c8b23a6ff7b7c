"""TransformerCaptionHead: the captioning Transformer trained from scratch.

Encoder over the backbone's pair tokens, decoder over caption tokens, pre-LN
blocks with ``F.scaled_dot_product_attention``. Decoding (greedy, beam) keeps
a key/value cache: the self-attention K/V of every decoder layer grows by one
position per step, the cross-attention K/V of the memory is computed once.
``use_cache=False`` recomputes the decoder over the whole prefix at each step.
"""
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Optional, Sequence

import torch
import torch.nn.functional as F
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS
from ..utils.caption_vocab import CaptionVocab, build_vocab_from_cfg, clip_tokenizer

__all__ = ['TransformerCaptionHead', 'CaptionDecodeOutput']


@lru_cache(maxsize=1 << 18)
def _caption_tokens(caption: str, length: int) -> torch.Tensor:
    """CLIP ids ``[length]`` of one caption, cached: a training set's
    references are tokenised once, not at every step."""
    return clip_tokenizer()(caption, length)[0]


@dataclass
class CaptionDecodeOutput:
    """Result of decoding a batch.

    ``tokens``: CLIP ids ``[B, T]`` (no start token; end-of-text included
    where reached, pad 0 after it). ``mean_logprob``: ``[B]`` mean
    log-probability per generated token. ``score``: ``[B]`` the ranking score
    (greedy: the mean log-prob; beam: sum of log-probs / length**penalty).
    """
    tokens: torch.Tensor
    mean_logprob: torch.Tensor
    score: torch.Tensor


class Attention(nn.Module):
    """Multi-head attention with separate query and key/value inputs."""

    def __init__(self, dim: int, num_heads: int, dropout: float):
        super().__init__()
        self.num_heads = num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(dim, dim)
        self.kv_proj = nn.Linear(dim, 2 * dim)
        self.out_proj = nn.Linear(dim, dim)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        # [B, T, C] -> [B, h, T, C/h]
        return x.view(B, T, self.num_heads, C // self.num_heads).transpose(1, 2)

    def key_value(self, x: torch.Tensor):
        k, v = self.kv_proj(x).chunk(2, dim=-1)  # 2 x [B, T, C]
        return self.split_heads(k), self.split_heads(v)  # 2 x [B, h, T, C/h]

    def forward(self, x, k, v, is_causal: bool = False) -> torch.Tensor:
        q = self.split_heads(self.q_proj(x))  # [B, h, Tq, C/h]
        y = F.scaled_dot_product_attention(
            q, k.to(q.dtype), v.to(q.dtype), is_causal=is_causal,
            dropout_p=self.dropout if self.training else 0.0)  # [B, h, Tq, C/h]
        B, _, Tq, _ = y.shape
        y = y.transpose(1, 2).reshape(B, Tq, -1)  # [B, Tq, C]
        return self.out_proj(y)


class FeedForward(nn.Sequential):

    def __init__(self, dim: int, hidden: int, dropout: float):
        super().__init__(
            nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, dim))


class EncoderLayer(nn.Module):
    """Pre-LN self-attention + feed-forward block."""

    def __init__(self, dim: int, num_heads: int, ffn_dim: int, dropout: float):
        super().__init__()
        self.ln_attn = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads, dropout)
        self.ln_ffn = nn.LayerNorm(dim)
        self.ffn = FeedForward(dim, ffn_dim, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln_attn(x)
        x = x + self.drop(self.attn(h, *self.attn.key_value(h)))
        return x + self.drop(self.ffn(self.ln_ffn(x)))


class DecoderLayer(nn.Module):
    """Pre-LN causal self-attention, cross-attention and feed-forward block.

    With ``cache`` (a dict) the self-attention keys/values of earlier
    positions are read from it and the new ones appended; the cross-attention
    keys/values are taken from ``cross_kv``.
    """

    def __init__(self, dim: int, num_heads: int, ffn_dim: int, dropout: float):
        super().__init__()
        self.ln_self = nn.LayerNorm(dim)
        self.self_attn = Attention(dim, num_heads, dropout)
        self.ln_cross = nn.LayerNorm(dim)
        self.cross_attn = Attention(dim, num_heads, dropout)
        self.ln_ffn = nn.LayerNorm(dim)
        self.ffn = FeedForward(dim, ffn_dim, dropout)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, cross_kv, cache: Optional[dict] = None):
        h = self.ln_self(x)
        k, v = self.self_attn.key_value(h)  # 2 x [B, h, t, C/h]
        if cache is not None:
            if 'k' in cache:  # append the new position(s) to the cache
                k = torch.cat([cache['k'], k], dim=2)  # [B, h, T, C/h]
                v = torch.cat([cache['v'], v], dim=2)
            cache['k'], cache['v'] = k, v
        # one query against all cached keys needs no mask; a full prefix does
        causal = x.shape[1] > 1
        x = x + self.drop(self.self_attn(h, k, v, is_causal=causal))
        x = x + self.drop(self.cross_attn(self.ln_cross(x), *cross_kv))
        return x + self.drop(self.ffn(self.ln_ffn(x)))


@MODELS.register_module()
class TransformerCaptionHead(BaseModule):
    """Captioning Transformer over the backbone's pair tokens.

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
        use_segment_embedding (bool): add a learned embedding per memory
            segment (before / after halves, or thirds with the backbone's
            difference tokens). Defaults to True.
        num_segments (int): memory segments; the captioner sets it from its
            backbone. Defaults to 2.
        vocab: output vocabulary: ``None`` (full CLIP BPE, 49,408 ids), a
            file path or ``dict(captions_from=..., cache_file=...)``; see
            :mod:`mmidc.models.utils.caption_vocab`.
        label_smoothing (float): cross-entropy label smoothing. Defaults to 0.
        pooled_memory_tokens (bool): append one token per memory segment,
            the channel-wise max over that segment's backbone tokens (plus a
            learned embedding per segment), so the decoder can read the
            changed object without first finding it by attention. Defaults
            to False.
        word_loss_weight (float): weight of an auxiliary bag-of-words loss:
            a linear classifier on the segments' max-pooled backbone tokens
            predicts which vocabulary words occur in the target caption
            (binary cross-entropy, averaged over batch and vocabulary;
            returned as ``loss_words``). It gives the backbone a direct
            signal for the object's attributes; 0 disables it. Defaults to 0.
        word_targets (str): what the bag-of-words loss predicts.
            ``'caption'``: the words of the caption being trained on (1 if
            present); ``'references'``: for each word, the fraction of the
            pair's reference captions that contain it (``loss`` then needs
            ``references``). Words naming the changed object recur in most
            references, the other objects of relational phrases in few, so
            the soft target weights the object's attributes. Defaults to
            ``'caption'``.
        change_tokens (int): ``K`` change-attention readouts (0 = none). Each
            scores the positions of the pair (a linear map of
            ``[before, after, |after - before|]`` tokens at the same
            position), takes the softmax over positions, and reads a
            *before* and an *after* token as the weighted sums of the two
            images' tokens. The ``2K`` tokens join the memory (with a learned
            embedding each) and the word classifier's input, so both read
            the changed object itself instead of a scene-wide pool.
            Defaults to 0.
        word_prior (bool): add the word classifier's belief to the
            decoder's next-word logits at every step: ``scale *
            log(sigmoid(word_logits))`` per vocabulary word, ``scale``
            learned (starting at 1). Words the classifier holds absent from
            this pair's caption are pushed down, so the decoder names the
            attributes the classifier read from the changed object (attribute
            inputs to a captioner: Yao et al., "Boosting Image Captioning with
            Attributes", 2017). Needs ``word_loss_weight > 0``. Defaults to
            False.
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
                 use_segment_embedding: bool = True,
                 num_segments: int = 2,
                 vocab=None,
                 label_smoothing: float = 0.0,
                 pooled_memory_tokens: bool = False,
                 word_loss_weight: float = 0.0,
                 word_targets: str = 'caption',
                 change_tokens: int = 0,
                 word_prior: bool = False,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        if hidden % num_heads:
            raise ValueError(f'hidden ({hidden}) must be divisible by '
                             f'num_heads ({num_heads})')
        if max_length < 2:
            raise ValueError(f'max_length must be >= 2, got {max_length}')
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f'label_smoothing must be in [0, 1), got {label_smoothing}')
        if word_loss_weight < 0:
            raise ValueError(f'word_loss_weight must be >= 0, got {word_loss_weight}')
        if word_prior and word_loss_weight <= 0:
            raise ValueError('word_prior=True reads the word classifier: it '
                             'needs word_loss_weight > 0')
        if word_targets not in ('caption', 'references'):
            raise ValueError("word_targets must be 'caption' or 'references', "
                             f'got {word_targets!r}')
        self.memory_dim = memory_dim
        self.max_length = max_length
        self.max_memory_tokens = max_memory_tokens
        self.label_smoothing = label_smoothing
        self.word_loss_weight = word_loss_weight
        self.word_targets_from = word_targets
        self.vocab: CaptionVocab = build_vocab_from_cfg(vocab)

        self.memory_proj = (nn.Linear(memory_dim, hidden)
                            if memory_dim != hidden else nn.Identity())
        self.memory_pos = nn.Parameter(torch.zeros(max_memory_tokens, hidden))
        self.num_segments = num_segments
        self.segment_embed = (nn.Parameter(torch.zeros(num_segments, hidden))
                              if use_segment_embedding else None)
        self.pooled_embed = (nn.Parameter(torch.zeros(num_segments, hidden))
                             if pooled_memory_tokens else None)
        if change_tokens < 0:
            raise ValueError(f'change_tokens must be >= 0, got {change_tokens}')
        self.change_tokens = change_tokens
        self.change_score = (nn.Linear(3 * memory_dim, change_tokens)
                             if change_tokens else None)
        self.change_embed = (nn.Parameter(torch.zeros(2 * change_tokens, hidden))
                             if change_tokens else None)
        pooled_dim = (num_segments + 2 * change_tokens) * memory_dim
        self.word_classifier = (nn.Linear(pooled_dim, len(self.vocab))
                                if word_loss_weight > 0 else None)
        self.word_prior_scale = (nn.Parameter(torch.ones(()))
                                 if word_prior else None)
        self.encoder = nn.ModuleList(
            EncoderLayer(hidden, num_heads, ffn_ratio * hidden, dropout)
            for _ in range(num_encoder_layers))
        self.ln_memory = nn.LayerNorm(hidden)

        self.word_embed = nn.Embedding(len(self.vocab), hidden)
        self.word_pos = nn.Parameter(torch.zeros(max_length, hidden))
        self.decoder = nn.ModuleList(
            DecoderLayer(hidden, num_heads, ffn_ratio * hidden, dropout)
            for _ in range(num_decoder_layers))
        self.ln_out = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(dropout)
        self._init_parameters()

    def _init_parameters(self):
        for name, p in self.named_parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)
            elif name.endswith('bias'):
                nn.init.zeros_(p)

    # ---------------------------------------------------------------- forward
    def encode(self, memory: torch.Tensor,
               summary: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Backbone tokens ``[B, T, memory_dim]`` -> encoded ``[B, T, hidden]``
        (plus the summary tokens' rows); ``summary``: :meth:`summary_tokens`
        of ``memory`` when the caller has them already."""
        B, T, _ = memory.shape
        if T > self.max_memory_tokens:
            raise ValueError(f'{T} memory tokens exceed max_memory_tokens='
                             f'{self.max_memory_tokens}; raise it in the head config')
        x = self.memory_proj(memory) + self.memory_pos[:T]  # [B, T, H]
        if self.segment_embed is not None:
            length = self._segment_length(T)
            segment = torch.arange(T, device=x.device) // length  # [T]: 0, .., 1, .. (, 2, ..)
            x = x + self.segment_embed[segment]  # [B, T, H]
        if self.pooled_embed is not None or self.change_score is not None:
            if summary is None:
                summary = self.summary_tokens(memory)  # [B, S+2K, D]
            S = self.num_segments
        if self.pooled_embed is not None:
            pooled = self.memory_proj(summary[:, :S])  # [B, S, H]
            x = torch.cat([x, pooled + self.pooled_embed], dim=1)  # [B, T+S, H]
        if self.change_score is not None:
            change = self.memory_proj(summary[:, S:])  # [B, 2K, H]
            x = torch.cat([x, change + self.change_embed], dim=1)  # [B, .+2K, H]
        x = self.drop(x)
        for layer in self.encoder:
            x = layer(x)
        return self.ln_memory(x)

    def _segment_length(self, num_tokens: int) -> int:
        """Tokens per memory segment; an error if they do not split evenly."""
        if num_tokens % self.num_segments:
            raise ValueError(f'{num_tokens} memory tokens do not split into '
                             f'num_segments={self.num_segments}')
        return num_tokens // self.num_segments

    def segment_max(self, memory: torch.Tensor) -> torch.Tensor:
        """Channel-wise max over each segment: ``[B, T, D]`` -> ``[B, S, D]``."""
        B, T, D = memory.shape
        # [B, T, D] -> [B, S, T/S, D] -> max over the segment's tokens
        return memory.view(B, self.num_segments, self._segment_length(T), D).amax(2)

    def change_readout(self, memory: torch.Tensor) -> torch.Tensor:
        """The ``2K`` change-attention tokens ``[B, 2K, D]`` (see
        ``change_tokens``): K before-tokens, then K after-tokens."""
        B, T, D = memory.shape
        # [B, T, D] -> [B, S, n+1, D]; segments 0 and 1 are before and after
        segments = memory.view(B, self.num_segments, self._segment_length(T), D)
        before, after = segments[:, 0], segments[:, 1]  # [B, n+1, D] each
        features = torch.cat([before, after, (after - before).abs()], -1)  # [B, n+1, 3D]
        weights = self.change_score(features).softmax(1)  # [B, n+1, K], over positions
        weights = weights.transpose(1, 2)  # [B, K, n+1]
        return torch.cat([weights @ before, weights @ after], 1)  # [B, 2K, D]

    def summary_tokens(self, memory: torch.Tensor) -> torch.Tensor:
        """``[B, S + 2K, D]``: each segment's channel-wise max, then the
        change-attention tokens (the extra memory rows and the word
        classifier's input)."""
        pooled = self.segment_max(memory)  # [B, S, D]
        if self.change_score is not None:
            pooled = torch.cat([pooled, self.change_readout(memory)], 1)  # [B, S+2K, D]
        return pooled

    def pooled_features(self, memory: torch.Tensor) -> torch.Tensor:
        """The word classifier's input ``[B, (S + 2K) * D]``."""
        return self.summary_tokens(memory).flatten(1)

    def cross_kv(self, encoded: torch.Tensor) -> List[tuple]:
        """Cross-attention keys/values of every decoder layer (once per batch)."""
        return [layer.cross_attn.key_value(encoded) for layer in self.decoder]

    def word_prior(self, summary: torch.Tensor) -> Optional[torch.Tensor]:
        """``[B, V]`` next-word logit offsets from the word classifier (see
        ``word_prior``), or None without the option."""
        if self.word_prior_scale is None:
            return None
        logits = self.word_classifier(summary.flatten(1))  # [B, V]
        return self.word_prior_scale * F.logsigmoid(logits)

    def decode_step(self, tokens, cross_kv, caches=None, start: int = 0,
                    prior: Optional[torch.Tensor] = None):
        """Logits for compact ``tokens`` ``[B, t]`` at positions start..start+t.

        Returns ``[B, t, V]``. With ``caches`` (one dict per layer), earlier
        positions come from the caches and ``tokens`` are the new ones only.
        ``prior`` ``[B, V]`` (:meth:`word_prior`) is added at every position.
        """
        t = tokens.shape[1]
        x = self.word_embed(tokens) + self.word_pos[start:start + t]  # [B, t, H]
        x = self.drop(x)
        for i, layer in enumerate(self.decoder):
            x = layer(x, cross_kv[i], None if caches is None else caches[i])
        x = self.ln_out(x)
        logits = x @ self.word_embed.weight.to(x.dtype).t()  # [B, t, V], tied
        if prior is not None:
            logits = logits + prior[:, None].to(logits.dtype)  # [B, 1, V] over t
        return logits

    def forward(self, memory: torch.Tensor, text_tokens: torch.Tensor,
                summary: Optional[torch.Tensor] = None):
        """Teacher-forced logits ``[B, L-1, V]`` for CLIP ``text_tokens`` ``[B, L]``."""
        tokens = self.vocab.to_compact(self._check_tokens(text_tokens))
        if summary is None and self.word_prior_scale is not None:
            summary = self.summary_tokens(memory)
        encoded = self.encode(memory, summary)
        prior = self.word_prior(summary) if summary is not None else None
        return self.decode_step(tokens[:, :-1], self.cross_kv(encoded),
                                prior=prior)

    def _check_tokens(self, text_tokens: torch.Tensor) -> torch.Tensor:
        if text_tokens.dim() != 2:
            raise ValueError('text_tokens must be [B, L] (one caption per pair), '
                             f'got shape {tuple(text_tokens.shape)}')
        if text_tokens.shape[1] > self.max_length:
            raise ValueError(f'text_tokens length {text_tokens.shape[1]} exceeds '
                             f'max_length={self.max_length}')
        return text_tokens

    def loss(self, memory: torch.Tensor, text_tokens: torch.Tensor,
             references: Optional[Sequence[Sequence[str]]] = None) -> Dict:
        """Cross-entropy of the next token, padding ignored.

        Args:
            memory (Tensor): backbone tokens ``[B, T, memory_dim]``.
            text_tokens (Tensor): CLIP ids ``[B, L]``, ``<sot> ... <eot> 0 0``.
            references (list[list[str]], optional): each pair's reference
                captions; needed by ``word_targets='references'``.

        Returns:
            dict: ``loss_caption``, ``accuracy`` (next-token, non-pad) and,
            with ``word_loss_weight > 0``, the weighted ``loss_words``.
        """
        # the summary tokens once, for the memory and the word classifier
        summary = (self.summary_tokens(memory)
                   if self.word_classifier is not None else None)
        losses = self.loss_from_logits(self(memory, text_tokens, summary),
                                       text_tokens)
        if self.word_classifier is not None:
            if self.word_targets_from == 'references':
                if references is None or len(references) != memory.shape[0]:
                    raise ValueError("word_targets='references' needs one list "
                                     'of reference captions per pair')
                targets = self.reference_word_targets(references)
            else:
                targets = self.word_targets(self._check_tokens(text_tokens))
            losses['loss_words'] = self.word_loss_weight * self.word_loss(
                memory, targets, summary)
        return losses

    def word_targets(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """Multi-hot ``[B, V]`` of the compact ids in each caption after the
        start token (end-of-text included, padding not)."""
        targets = self.vocab.to_compact(text_tokens[:, 1:])  # [B, L-1]
        hot = torch.zeros(targets.shape[0], len(self.vocab),
                          device=targets.device)  # [B, V]
        hot.scatter_(1, targets, 1.0)
        hot[:, self.vocab.pad_id] = 0.0
        return hot

    def reference_word_targets(self, references: Sequence[Sequence[str]]) -> torch.Tensor:
        """``[B, V]``: per pair, the fraction of its references containing
        each vocabulary word (end-of-text included, padding not)."""
        rows = []
        for refs in references:
            tokens = torch.stack([_caption_tokens(c, self.max_length)
                                  for c in refs])  # [K, L]
            rows.append(self.word_targets(tokens).mean(0))  # [V]
        return torch.stack(rows).to(self.word_classifier.weight.device,
                                    non_blocking=True)  # [B, V]

    def word_loss(self, memory: torch.Tensor, targets: torch.Tensor,
                  summary: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Bag-of-words BCE of the word classifier against ``targets``
        ``[B, V]`` in [0, 1] (see ``word_loss_weight``); ``summary`` as in
        :meth:`encode`."""
        if summary is None:
            summary = self.summary_tokens(memory)  # [B, S+2K, D]
        logits = self.word_classifier(summary.flatten(1)).float()  # [B, V]
        return F.binary_cross_entropy_with_logits(logits, targets)

    def loss_from_logits(self, logits: torch.Tensor, text_tokens: torch.Tensor) -> Dict:
        """The loss of :meth:`loss` from teacher-forced ``logits`` ``[B, L-1, V]``."""
        logits = logits.float()
        targets = self.vocab.to_compact(text_tokens[:, 1:])  # [B, L-1]
        loss = F.cross_entropy(
            logits.flatten(0, 1), targets.flatten(),  # [B*(L-1), V], [B*(L-1)]
            ignore_index=self.vocab.pad_id,
            label_smoothing=self.label_smoothing)
        valid = targets != self.vocab.pad_id
        # sum / count, not a masked mean: boolean indexing waits for the GPU
        correct = (logits.argmax(-1) == targets) & valid
        accuracy = correct.sum() / valid.sum()
        return dict(loss_caption=loss, accuracy=accuracy.detach())

    # --------------------------------------------------------------- decoding
    def _log_probs(self, logits: torch.Tensor) -> torch.Tensor:
        """Next-token log-probs ``[N, V]``; pad, start and unk never generated."""
        logits = logits.float()
        banned = [self.vocab.pad_id, self.vocab.sot_id]
        if self.vocab.unk_id is not None:
            banned.append(self.vocab.unk_id)
        logits[:, banned] = float('-inf')
        return logits.log_softmax(-1)

    def _start(self, memory: torch.Tensor, repeat: int, use_cache: bool):
        """Start tokens ``[B*repeat, 1]``, the cross-attention keys/values,
        the caches and the word prior (``[B*repeat, V]`` or None)."""
        summary = (self.summary_tokens(memory)
                   if self.word_prior_scale is not None else None)
        encoded = self.encode(memory, summary)  # [B, T, H]
        encoded = encoded.repeat_interleave(repeat, dim=0)  # [B*repeat, T, H]
        prior = None
        if summary is not None:
            prior = self.word_prior(summary).repeat_interleave(repeat, dim=0)
        cross_kv = self.cross_kv(encoded)
        caches = [dict() for _ in self.decoder] if use_cache else None
        tokens = torch.full((encoded.shape[0], 1), self.vocab.sot_id,
                            dtype=torch.long, device=memory.device)  # [N, 1]
        return tokens, cross_kv, caches, prior

    def _next_logits(self, tokens, cross_kv, caches, prior=None):
        """Logits ``[N, V]`` of the position after ``tokens`` ``[N, t]``."""
        if caches is None:  # recompute the decoder over the whole prefix
            return self.decode_step(tokens, cross_kv, prior=prior)[:, -1]
        t = tokens.shape[1]
        return self.decode_step(tokens[:, -1:], cross_kv, caches, start=t - 1,
                                prior=prior)[:, 0]

    @torch.no_grad()
    def greedy_decode(self, memory: torch.Tensor, max_length: Optional[int] = None,
                      use_cache: bool = True) -> CaptionDecodeOutput:
        """Greedy decoding, each sequence stopping at its end-of-text.

        Args:
            memory (Tensor): backbone tokens ``[B, T, memory_dim]``.
            max_length (int, optional): context length incl. the start token
                (at most ``max_length - 1`` generated). Defaults to the head's.
            use_cache (bool): key/value cache; ``False`` recomputes the prefix.
        """
        max_length = min(max_length or self.max_length, self.max_length)
        tokens, cross_kv, caches, prior = self._start(memory, 1, use_cache)
        B = tokens.shape[0]
        sum_logprob = memory.new_zeros(B, dtype=torch.float)
        length = torch.zeros(B, dtype=torch.long, device=memory.device)
        done = torch.zeros(B, dtype=torch.bool, device=memory.device)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self._next_logits(tokens, cross_kv, caches, prior))
            logprob, word = log_probs.max(-1)  # [B], [B]
            word = word.masked_fill(done, self.vocab.pad_id)
            sum_logprob += logprob.masked_fill(done, 0.0)
            length += (~done).long()
            tokens = torch.cat([tokens, word[:, None]], dim=1)  # [B, t+1]
            done |= word == self.vocab.eot_id
            if done.all():
                break
        mean_logprob = sum_logprob / length.clamp(min=1)
        return CaptionDecodeOutput(self.vocab.to_clip(tokens[:, 1:]), mean_logprob,
                                   mean_logprob)

    @torch.no_grad()
    def beam_search(self, memory: torch.Tensor, beam_size: int = 3,
                    length_penalty: float = 1.0, max_length: Optional[int] = None,
                    use_cache: bool = True) -> CaptionDecodeOutput:
        """Beam search; a beam that emits end-of-text is frozen.

        Beams are ranked by their sum of log-probs while searching; the final
        pick maximises ``sum_logprob / length ** length_penalty`` (length
        counts generated tokens, end-of-text included). ``beam_size=1`` is
        greedy decoding.
        """
        if beam_size < 1:
            raise ValueError(f'beam_size must be >= 1, got {beam_size}')
        max_length = min(max_length or self.max_length, self.max_length)
        K = beam_size
        tokens, cross_kv, caches, prior = self._start(memory, K, use_cache)  # [B*K, 1]
        B = memory.shape[0]
        device = memory.device
        beam_logprob = torch.full((B, K), float('-inf'), device=device)
        beam_logprob[:, 0] = 0.0  # all beams start equal: keep one
        length = torch.zeros(B, K, dtype=torch.long, device=device)
        done = torch.zeros(B, K, dtype=torch.bool, device=device)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self._next_logits(tokens, cross_kv, caches, prior))
            V = log_probs.shape[-1]
            log_probs = log_probs.view(B, K, V)  # [B, K, V]
            # a finished beam continues only with pad, at no cost
            frozen = torch.full_like(log_probs[0, 0], float('-inf'))
            frozen[self.vocab.pad_id] = 0.0
            log_probs = torch.where(done[..., None], frozen, log_probs)
            candidates = (beam_logprob[..., None] + log_probs).view(B, K * V)
            beam_logprob, index = candidates.topk(K, dim=-1)  # [B, K] each
            parent, word = index // V, index % V  # [B, K] each
            flat_parent = (parent + torch.arange(B, device=device)[:, None] * K).view(-1)
            tokens = torch.cat([tokens[flat_parent], word.view(-1, 1)], dim=1)  # [B*K, t+1]
            if caches is not None:
                for cache in caches:
                    cache['k'] = cache['k'][flat_parent]
                    cache['v'] = cache['v'][flat_parent]
            was_done = done.gather(1, parent)
            length = length.gather(1, parent) + (~was_done).long()
            done = was_done | (word == self.vocab.eot_id)
            if done.all():
                break
        score = beam_logprob / length.clamp(min=1).float() ** length_penalty  # [B, K]
        best = score.argmax(-1)  # [B]
        pick = torch.arange(B, device=device) * K + best  # [B]
        chosen_length = length.gather(1, best[:, None])[:, 0].clamp(min=1)
        mean_logprob = beam_logprob.gather(1, best[:, None])[:, 0] / chosen_length
        tokens = tokens[pick, 1:]  # [B, t]
        tokens = tokens[:, :int(chosen_length.max())]  # drop all-pad columns
        return CaptionDecodeOutput(
            self.vocab.to_clip(tokens), mean_logprob,
            score.gather(1, best[:, None])[:, 0])

    def decode_text(self, tokens: torch.Tensor) -> List[str]:
        """CLIP ids ``[B, T]`` -> list of B caption strings."""
        return [self.vocab.decode(row) for row in tokens.cpu()]
