"""Caption generation: greedy and beam search over a key/value-cached decoder.

:class:`CaptionGenerator` is the one decoding loop of every captioner's
decoder (the caption heads, :class:`TransformerCaptionHead` and the from-scratch
project's ``ScratchCaptionHead``, and IDC-PCL's
:class:`CrossModalTransformer`).
A decoder that derives from it provides:

- ``vocab`` (:class:`CaptionVocab`): its ``sot_id``, ``eot_id``, ``pad_id``
  and ``unk_id`` (compact ids), ``to_clip`` and ``decode``;
- ``max_length`` (int): the context length, start token included;
- ``start_decoding(memory, repeat, use_cache, **inputs)`` -> ``(tokens,
  context, caches)``: the start tokens ``[N, 1]`` (``N = B * repeat``, each
  row of ``memory`` repeated ``repeat`` times in a row), what every step
  reads (``context``, e.g. cross-attention keys and values) and the
  per-layer caches (None without ``use_cache``); ``inputs`` are the
  decoder's own further inputs, if it has any;
- ``next_logits(tokens, context, caches)`` -> ``[N, V]``: the scores of the
  word after ``tokens`` ``[N, t]``; with caches, it reads the earlier
  positions from them and appends the newest.

A ``logit_bias`` ``[B, V]`` given to the search (e.g. an auxiliary head's
word prior) is added to the scores of every step. A counted bias
``[B, K, V]`` holds one row per number of times a word was already
generated: word ``w`` gets ``bias[:, min(c_w, K - 1), w]`` when the sequence
holds it ``c_w`` times (:func:`counted_bias`; teacher forcing uses
:func:`prefix_word_counts`), so a prior can say "once, not twice".

A layer's cache is a dict of batch-first tensors (self-attention keys and
values ``k``, ``v`` ``[N, h, T, C/h]``); :func:`extend_cache` appends a
step's. Beam search reorders the caches to the surviving beams with
:meth:`CaptionGenerator.reorder_caches`; a decoder with another cache
layout overrides it.

:func:`check_decode_cfg` validates the captioners' ``decode_cfg`` and
:func:`generate` runs it.
"""
from dataclasses import dataclass
from typing import List, Optional

import torch

from mmidc.text import CaptionVocab, build_vocab_from_cfg

__all__ = ['CaptionDecodeOutput', 'CaptionGenerator', 'check_decode_cfg',
           'generate', 'extend_cache', 'counted_bias', 'prefix_word_counts',
           'DECODE_KEYS']

#: The keys of a captioner's ``decode_cfg``.
DECODE_KEYS = {'strategy', 'beam_size', 'length_penalty', 'max_length'}


def extend_cache(cache: dict, k: torch.Tensor, v: torch.Tensor):
    """Append keys and values ``[N, h, t, C/h]`` to a layer's ``cache``
    (filled on first use); returns all of them, ``[N, h, T, C/h]`` each."""
    if 'k' in cache:
        k = torch.cat([cache['k'], k], dim=2)  # [N, h, T, C/h]
        v = torch.cat([cache['v'], v], dim=2)
    cache['k'], cache['v'] = k, v
    return k, v


def prefix_word_counts(tokens: torch.Tensor, num_words: int) -> torch.Tensor:
    """How often each word occurs in each prefix of ``tokens``.

    Args:
        tokens (Tensor): compact ids ``[N, t]``, the start token first.
        num_words (int): the vocabulary size ``V``.

    Returns:
        Tensor: ``[N, t, V]``; row ``i`` counts the words of
        ``tokens[:, 1:i + 1]`` (the start token is not a word), what the
        decoder has written when it predicts position ``i + 1``.
    """
    N, t = tokens.shape
    hot = tokens.new_zeros(N, t, num_words)  # [N, t, V]
    hot[:, 1:].scatter_(2, tokens[:, 1:, None], 1)  # one-hot of each word
    return hot.cumsum(1)  # [N, t, V]


def counted_bias(bias: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """The bias each word gets given how often it was written.

    Args:
        bias (Tensor): ``[N, V]`` (returned as it is, broadcast over the
            positions of ``counts``) or counted, ``[N, K, V]``.
        counts (Tensor): ``[N, V]`` or ``[N, t, V]`` word counts
            (:func:`prefix_word_counts`).

    Returns:
        Tensor: the bias of ``counts``' shape: ``bias[n, min(c, K - 1), w]``
        for a word ``w`` written ``c`` times.
    """
    if bias.dim() == 2:
        return bias if counts.dim() == 2 else bias[:, None]  # [N, (1,) V]
    if bias.dim() != 3:
        raise ValueError('logit_bias must be [N, V] or counted [N, K, V], '
                         f'got shape {tuple(bias.shape)}')
    level = counts.clamp(max=bias.shape[1] - 1)
    if counts.dim() == 2:  # one step: [N, V] -> [N, 1, V]
        return bias.gather(1, level[:, None])[:, 0]  # [N, V]
    return bias.gather(1, level)  # [N, t, V]


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


class CaptionGenerator:
    """Greedy and beam search for a decoder with the protocol of the module
    docstring (a mixin: it holds no parameters)."""

    def init_vocab(self, max_length: int, vocab) -> None:
        """Set ``max_length`` (at least 2) and ``vocab``, a
        :class:`CaptionVocab` built from its config (``None``, a vocabulary
        file or a list of captions: :func:`build_vocab_from_cfg`)."""
        if max_length < 2:
            raise ValueError(f'max_length must be >= 2, got {max_length}')
        self.max_length = max_length
        self.vocab: CaptionVocab = build_vocab_from_cfg(vocab)

    def start_decoding(self, memory: torch.Tensor, repeat: int, use_cache: bool,
                       **inputs):
        raise NotImplementedError(f'{type(self).__name__} must implement '
                                  'start_decoding')

    def next_logits(self, tokens: torch.Tensor, context, caches) -> torch.Tensor:
        raise NotImplementedError(f'{type(self).__name__} must implement '
                                  'next_logits')

    @staticmethod
    def reorder_caches(caches: Optional[List[dict]], index: torch.Tensor) -> None:
        """Keep the cache rows ``index`` ``[N]`` (the surviving beams'), in
        place."""
        if caches is None:
            return
        for cache in caches:
            for key in cache:
                cache[key] = cache[key][index]

    def _log_probs(self, logits: torch.Tensor,
                   bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Next-token log-probs ``[N, V]`` of ``logits`` (plus ``bias``
        ``[N, V]``); pad, start and unk never generated."""
        if bias is not None:
            logits = logits + bias.to(logits.dtype)
        logits = logits.float()
        banned = [self.vocab.pad_id, self.vocab.sot_id]
        if self.vocab.unk_id is not None:
            banned.append(self.vocab.unk_id)
        logits[:, banned] = float('-inf')
        return logits.log_softmax(-1)

    def _start_counts(self, bias: Optional[torch.Tensor],
                      n: int) -> Optional[torch.Tensor]:
        """Zero word counts ``[n, V]`` for a counted ``bias``, else None."""
        if bias is None or bias.dim() == 2:
            return None
        return torch.zeros(n, bias.shape[-1], dtype=torch.long, device=bias.device)

    @staticmethod
    def _step_bias(bias: Optional[torch.Tensor],
                   counts: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
        """This step's bias ``[N, V]``: ``bias`` itself, or its rows for
        the words' ``counts`` when it is counted."""
        if counts is None:
            return bias
        return counted_bias(bias, counts)

    @torch.no_grad()
    def greedy_decode(self, memory: torch.Tensor, max_length: Optional[int] = None,
                      use_cache: bool = True,
                      logit_bias: Optional[torch.Tensor] = None,
                      **inputs) -> CaptionDecodeOutput:
        """Greedy decoding, each sequence stopping at its end-of-text.

        Args:
            memory (Tensor): what the decoder reads, ``[B, T, D]``.
            max_length (int, optional): context length incl. the start token
                (at most ``max_length - 1`` generated). Defaults to the
                decoder's.
            use_cache (bool): key/value cache; ``False`` recomputes the prefix.
            logit_bias (Tensor, optional): ``[B, V]`` added to every step's
                scores, or counted ``[B, K, V]`` (:func:`counted_bias`).
            **inputs: the decoder's further inputs (``start_decoding``'s).
        """
        max_length = min(max_length or self.max_length, self.max_length)
        tokens, context, caches = self.start_decoding(memory, 1, use_cache,
                                                      **inputs)
        B = tokens.shape[0]
        sum_logprob = memory.new_zeros(B, dtype=torch.float)
        length = torch.zeros(B, dtype=torch.long, device=memory.device)
        done = torch.zeros(B, dtype=torch.bool, device=memory.device)
        counts = self._start_counts(logit_bias, B)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self.next_logits(tokens, context, caches),
                                        self._step_bias(logit_bias, counts))
            logprob, word = log_probs.max(-1)  # [B], [B]
            word = word.masked_fill(done, self.vocab.pad_id)
            if counts is not None:
                counts.scatter_add_(1, word[:, None], torch.ones_like(word[:, None]))
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
                    use_cache: bool = True,
                    logit_bias: Optional[torch.Tensor] = None,
                    **inputs) -> CaptionDecodeOutput:
        """Beam search; a beam that emits end-of-text is frozen.

        Beams are ranked by their sum of log-probs while searching; the final
        pick maximises ``sum_logprob / length ** length_penalty`` (length
        counts generated tokens, end-of-text included). ``beam_size=1`` is
        greedy decoding. The other arguments: as in :meth:`greedy_decode`.
        """
        if beam_size < 1:
            raise ValueError(f'beam_size must be >= 1, got {beam_size}')
        max_length = min(max_length or self.max_length, self.max_length)
        K = beam_size
        tokens, context, caches = self.start_decoding(memory, K, use_cache,
                                                      **inputs)  # [B*K, 1]
        prior = None
        if logit_bias is not None:
            prior = logit_bias.repeat_interleave(K, dim=0)  # [B*K, (K',) V]
        B = memory.shape[0]
        counts = self._start_counts(prior, B * K)
        device = memory.device
        beam_logprob = torch.full((B, K), float('-inf'), device=device)
        beam_logprob[:, 0] = 0.0  # all beams start equal: keep one
        length = torch.zeros(B, K, dtype=torch.long, device=device)
        done = torch.zeros(B, K, dtype=torch.bool, device=device)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self.next_logits(tokens, context, caches),
                                        self._step_bias(prior, counts))
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
            self.reorder_caches(caches, flat_parent)
            if counts is not None:  # the parents' counts plus the new word
                counts = counts[flat_parent].scatter_add_(
                    1, word.view(-1, 1), torch.ones_like(word.view(-1, 1)))
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


def check_decode_cfg(cfg: dict) -> dict:
    """A captioner's ``decode_cfg`` with its defaults: ``strategy``
    (``'greedy'`` or ``'beam'``), ``beam_size`` (3), ``length_penalty``
    (1.0), ``max_length`` (None: the decoder's).

    Raises:
        KeyError: an unknown key, named.
        ValueError: an unknown strategy.
    """
    unknown = set(cfg) - DECODE_KEYS
    if unknown:
        raise KeyError(f'decode_cfg: unknown keys {sorted(unknown)}; '
                       f'expected {sorted(DECODE_KEYS)}')
    cfg = dict(dict(strategy='greedy', beam_size=3, length_penalty=1.0,
                    max_length=None), **cfg)
    if cfg['strategy'] not in ('greedy', 'beam'):
        raise ValueError(f"decode_cfg.strategy must be 'greedy' or 'beam', "
                         f"got {cfg['strategy']!r}")
    return cfg


def generate(decoder: CaptionGenerator, memory: torch.Tensor, cfg: dict,
             **kwargs) -> CaptionDecodeOutput:
    """Decode ``memory`` with ``decoder`` as the checked ``decode_cfg``
    ``cfg`` says (``kwargs``: ``logit_bias`` and the decoder's inputs)."""
    if cfg['strategy'] == 'beam':
        return decoder.beam_search(memory, cfg['beam_size'], cfg['length_penalty'],
                                   cfg['max_length'], **kwargs)
    return decoder.greedy_decode(memory, cfg['max_length'], **kwargs)
