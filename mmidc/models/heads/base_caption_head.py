"""What the caption heads over a backbone's tokens share: vocabulary, loss,
teacher forcing and the decoding protocol."""
from typing import Dict, List, Optional

import torch
from mmengine.model import BaseModule

from mmidc.registry import MODELS
from ..generation.generation import CaptionGenerator

__all__ = ['BaseCaptionHead']


class BaseCaptionHead(CaptionGenerator, BaseModule):
    """An encoder over the memory tokens and a decoder over caption tokens.

    A head provides the architecture: :meth:`encode` (the memory tokens, and
    any keyword inputs of the head, to what :meth:`cross_kv` reads),
    :meth:`cross_kv` (each decoder layer's cross-attention keys/values),
    :meth:`embed_tokens` and :meth:`output_logits` (the word input and
    output), and ``decoder``, its layers (``layer(x, cross_kv, cache)``,
    e.g. :class:`~mmidc.models.layers.DecoderLayer`). This class runs them:
    teacher forcing (:meth:`forward`, :meth:`loss`, which convert a
    batch's CLIP ids to compact ids once, :meth:`compact_tokens`) and the
    :class:`CaptionGenerator` protocol (greedy and beam search with a
    key/value cache).

    Args:
        max_length (int): Caption context length (start token included);
            also the decoding limit.
        vocab: Output vocabulary: ``None`` (full CLIP BPE, 49,408 ids), a
            vocabulary file (``tools/dataset_converters/build_vocab.py``)
            or a list of captions; see :mod:`mmidc.text.caption_vocab`.
        loss (dict): Config of the next-token loss, called with the float
            logits ``[B, L-1, V]`` and the compact target ids ``[B, L-1]``;
            its ``ignore_index`` defaults to the vocabulary's padding id.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self, max_length: int, vocab, loss: dict,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        self.init_vocab(max_length, vocab)
        loss = dict(loss)
        loss.setdefault('ignore_index', self.vocab.pad_id)
        self.loss_module = MODELS.build(loss)

    # ------------------------------------------------- what a head provides
    def encode(self, memory: torch.Tensor, **inputs) -> torch.Tensor:
        """Memory tokens ``[B, T, memory_dim]`` -> what :meth:`cross_kv`
        reads (batch first)."""
        raise NotImplementedError

    def cross_kv(self, encoded: torch.Tensor) -> List[tuple]:
        """Cross-attention keys/values of every decoder layer (once per
        batch)."""
        raise NotImplementedError

    def embed_tokens(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        """The decoder's input ``[B, t, H]`` for compact ``tokens`` ``[B, t]``
        at positions start..start+t."""
        raise NotImplementedError

    def output_logits(self, x: torch.Tensor) -> torch.Tensor:
        """Next-token logits ``[B, t, V]`` from the last decoder layer's
        output ``[B, t, H]``."""
        raise NotImplementedError

    # ---------------------------------------------------------------- forward
    def decode_step(self, tokens: torch.Tensor, cross_kv: List[tuple],
                    caches: Optional[List[dict]] = None,
                    start: int = 0) -> torch.Tensor:
        """Logits ``[B, t, V]`` for compact ``tokens`` ``[B, t]`` at positions
        start..start+t. With ``caches`` (one dict per layer), earlier
        positions come from the caches and ``tokens`` are the new ones only."""
        x = self.embed_tokens(tokens, start)  # [B, t, H]
        for i, layer in enumerate(self.decoder):
            x = layer(x, cross_kv[i], None if caches is None else caches[i])
        return self.output_logits(x)  # [B, t, V]

    def forward(self, memory: torch.Tensor, text_tokens: torch.Tensor,
                **inputs) -> torch.Tensor:
        """Teacher-forced logits ``[B, L-1, V]`` for CLIP ``text_tokens``
        ``[B, L]``; ``inputs`` go to :meth:`teacher_logits`."""
        return self.teacher_logits(memory, self.compact_tokens(text_tokens),
                                   **inputs)

    def compact_tokens(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """A batch's CLIP ``text_tokens`` ``[B, L]`` checked and converted
        to the vocabulary's compact ids, once per batch."""
        if text_tokens.dim() != 2:
            raise ValueError('text_tokens must be [B, L] (one caption per pair), '
                             f'got shape {tuple(text_tokens.shape)}')
        if text_tokens.shape[1] > self.max_length:
            raise ValueError(f'text_tokens length {text_tokens.shape[1]} exceeds '
                             f'max_length={self.max_length}')
        return self.vocab.to_compact(text_tokens)

    def teacher_logits(self, memory: torch.Tensor, tokens: torch.Tensor,
                       **inputs) -> torch.Tensor:
        """Teacher-forced logits ``[B, L-1, V]`` for compact ``tokens``
        ``[B, L]`` (:meth:`compact_tokens`); ``inputs`` go to
        :meth:`encode`. A head with inputs of its own for the logits (e.g.
        a logit bias) overrides this method."""
        encoded = self.encode(memory, **inputs)
        return self.decode_step(tokens[:, :-1], self.cross_kv(encoded))

    def loss(self, memory: torch.Tensor, text_tokens: torch.Tensor,
             **inputs) -> Dict:
        """The next-token loss, padding ignored.

        Args:
            memory (Tensor): backbone tokens ``[B, T, memory_dim]``.
            text_tokens (Tensor): CLIP ids ``[B, L]``, ``<sot> ... <eot> 0 0``.
            **inputs: the head's other inputs (see :meth:`teacher_logits`).

        Returns:
            dict: ``loss_caption`` and ``accuracy`` (next-token, non-pad).
        """
        tokens = self.compact_tokens(text_tokens)  # [B, L]
        logits = self.teacher_logits(memory, tokens, **inputs)
        return self.compact_loss(logits, tokens[:, 1:])

    def loss_from_logits(self, logits: torch.Tensor,
                         text_tokens: torch.Tensor) -> Dict:
        """The loss of :meth:`loss` from teacher-forced ``logits``
        ``[B, L-1, V]`` and the CLIP ``text_tokens`` ``[B, L]``."""
        return self.compact_loss(logits,
                                 self.vocab.to_compact(text_tokens[:, 1:]))

    def compact_loss(self, logits: torch.Tensor,
                     targets: torch.Tensor) -> Dict:
        """The loss of :meth:`loss` from teacher-forced ``logits``
        ``[B, L-1, V]`` and the compact next-token ``targets``
        ``[B, L-1]``."""
        logits = logits.float()
        loss = self.loss_module(logits, targets)
        # accuracy over the non-pad targets: sum / count, not a masked mean
        # (boolean indexing waits for the GPU)
        valid = targets != self.vocab.pad_id
        correct = (logits.argmax(-1) == targets) & valid
        return dict(loss_caption=loss, accuracy=(correct.sum() / valid.sum()).detach())

    # ------------------- decoding (CaptionGenerator's greedy and beam search)
    def start_decoding(self, memory: torch.Tensor, repeat: int, use_cache: bool,
                       **inputs):
        """Start tokens ``[B*repeat, 1]``, the cross-attention keys/values
        and the caches; ``inputs`` go to :meth:`encode`."""
        encoded = self.encode(memory, **inputs)  # [B, ...] (batch first)
        encoded = encoded.repeat_interleave(repeat, dim=0)  # [B*repeat, ...]
        cross_kv = self.cross_kv(encoded)
        caches = [dict() for _ in self.decoder] if use_cache else None
        tokens = torch.full((encoded.shape[0], 1), self.vocab.sot_id,
                            dtype=torch.long, device=memory.device)  # [N, 1]
        return tokens, cross_kv, caches

    def next_logits(self, tokens: torch.Tensor, cross_kv: List[tuple],
                    caches: Optional[List[dict]]) -> torch.Tensor:
        """Logits ``[N, V]`` of the position after ``tokens`` ``[N, t]``."""
        if caches is None:  # recompute the decoder over the whole prefix
            return self.decode_step(tokens, cross_kv)[:, -1]
        t = tokens.shape[1]
        return self.decode_step(tokens[:, -1:], cross_kv, caches, start=t - 1)[:, 0]
