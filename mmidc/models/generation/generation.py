"""Caption generation: greedy and beam search over a key/value-cached decoder.

:class:`CaptionGenerator` is the one decoding loop of every captioner's
decoder (:class:`TransformerCaptionHead`, the from-scratch project's
``ScratchCaptionHead``, IDC-PCL's :class:`CrossModalTransformer`). A decoder
that derives from it provides:

- ``vocab`` (:class:`CaptionVocab`: compact ``sot_id``, ``eot_id``,
  ``pad_id``, ``unk_id``; ``to_clip``, ``decode``) and ``max_length`` (int,
  the context length, start token included);
- ``start_decoding(memory, repeat, use_cache, **inputs)`` -> ``(tokens,
  context, caches)``: the start tokens ``[N, 1]`` (``N = B * repeat``, each
  row of ``memory`` repeated ``repeat`` times in a row), what every step
  reads (``context``, e.g. cross-attention keys and values) and the
  per-layer caches (None without ``use_cache``); ``inputs`` are the
  decoder's own further inputs, if it has any;
- ``next_logits(tokens, context, caches)`` -> ``[N, V]``: the scores of the
  word after ``tokens`` ``[N, t]``; with caches, it reads the earlier
  positions from them and appends the newest.

Score edits during decoding are the search's ``logits_processors``:
callables ``(tokens, scores) -> scores`` (Hugging Face's
``LogitsProcessor`` contract), applied in order at every step. ``tokens``
``[N, t]``: the compact ids so far, start token first (``N = B *
beam_size`` in beam search, each sample's beams in a row); ``scores``
``[N, V]``: the decoder's next-word **logits** in its dtype, before the
float conversion, the banned ids and the log-softmax. A processor returns
new scores of the same shape (e.g. a word prior added, a banned word at
``-inf``); it may not change ``scores`` in place.

A layer's cache is a dict of batch-first tensors (self-attention keys and
values ``k``, ``v`` ``[N, h, T, C/h]``); :func:`extend_cache` appends a
step's; beam search keeps the surviving beams' rows with
:meth:`CaptionGenerator.reorder_caches`, which a decoder with another cache
layout overrides. :func:`check_decode_cfg` validates the captioners'
``decode_cfg`` and :func:`generate` runs it.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import torch

from mmidc.text import CaptionVocab, build_vocab_from_cfg

__all__ = ['CaptionDecodeOutput', 'CaptionGenerator', 'LogitsProcessor',
           'check_decode_cfg', 'generate', 'extend_cache', 'DECODE_KEYS']

#: A score edit of the search: ``(tokens [N, t], logits [N, V]) -> logits``
#: (see the module docstring).
LogitsProcessor = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

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

    def _log_probs(self, logits: torch.Tensor, tokens: torch.Tensor,
                   processors: Sequence[LogitsProcessor] = ()) -> torch.Tensor:
        """Next-token log-probs ``[N, V]`` of ``logits`` after the
        ``processors`` (given ``tokens`` ``[N, t]``, the prefix so far); pad,
        start and unk never generated."""
        for processor in processors:
            logits = processor(tokens, logits)
        logits = logits.float()
        banned = [self.vocab.pad_id, self.vocab.sot_id]
        if self.vocab.unk_id is not None:
            banned.append(self.vocab.unk_id)
        logits[:, banned] = float('-inf')
        return logits.log_softmax(-1)

    @torch.no_grad()
    def greedy_decode(self, memory: torch.Tensor, max_length: Optional[int] = None,
                      use_cache: bool = True,
                      logits_processors: Sequence[LogitsProcessor] = (),
                      **inputs) -> CaptionDecodeOutput:
        """Greedy decoding, each sequence stopping at its end-of-text.

        Args:
            memory (Tensor): what the decoder reads, ``[B, T, D]``.
            max_length (int, optional): context length incl. the start token
                (at most ``max_length - 1`` generated). Defaults to the
                decoder's.
            use_cache (bool): key/value cache; ``False`` recomputes the prefix.
            logits_processors (Sequence[callable]): score edits, applied in
                order to every step's logits (see the module docstring).
            **inputs: the decoder's further inputs (``start_decoding``'s).
        """
        max_length = min(max_length or self.max_length, self.max_length)
        tokens, context, caches = self.start_decoding(memory, 1, use_cache,
                                                      **inputs)
        B = tokens.shape[0]
        sum_logprob = memory.new_zeros(B, dtype=torch.float)
        length = torch.zeros(B, dtype=torch.long, device=memory.device)
        done = torch.zeros(B, dtype=torch.bool, device=memory.device)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self.next_logits(tokens, context, caches),
                                        tokens, logits_processors)
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
                    use_cache: bool = True,
                    logits_processors: Sequence[LogitsProcessor] = (),
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
        B = memory.shape[0]
        device = memory.device
        beam_logprob = torch.full((B, K), float('-inf'), device=device)
        beam_logprob[:, 0] = 0.0  # all beams start equal: keep one
        length = torch.zeros(B, K, dtype=torch.long, device=device)
        done = torch.zeros(B, K, dtype=torch.bool, device=device)
        for _ in range(max_length - 1):
            log_probs = self._log_probs(self.next_logits(tokens, context, caches),
                                        tokens, logits_processors)
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
    ``cfg`` says (``kwargs``: ``logits_processors`` and the decoder's
    inputs)."""
    if cfg['strategy'] == 'beam':
        return decoder.beam_search(memory, cfg['beam_size'], cfg['length_penalty'],
                                   cfg['max_length'], **kwargs)
    return decoder.greedy_decode(memory, cfg['max_length'], **kwargs)
