"""GRUCaptionHead: a recurrent caption decoder on mmidc's caption-head
contract (``BaseCaptionHead``), a template for a head of your own."""
from typing import List, Optional

import torch
from torch import nn

from mmidc.models.heads import BaseCaptionHead
from mmidc.registry import MODELS

__all__ = ['GRUCaptionHead']


class GRULayer(nn.Module):
    """One GRU layer in the decoder-layer form ``layer(x, context, cache)``
    that ``BaseCaptionHead`` runs: ``context`` ``[N, H]`` is its initial
    state, ``cache`` (a dict, or None) keeps its last state between the
    search's steps, batch first (the search reorders it with the beams)."""

    def __init__(self, hidden: int):
        super().__init__()
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, x: torch.Tensor, context: torch.Tensor,
                cache: Optional[dict] = None) -> torch.Tensor:
        state = context if cache is None or 'h' not in cache else cache['h']
        out, last = self.gru(x, state[None].contiguous())  # [N, t, H], [1, N, H]
        if cache is not None:
            cache['h'] = last[0]
        return out


@MODELS.register_module()
class GRUCaptionHead(BaseCaptionHead):
    """A GRU decoder whose initial state is the mean of the memory tokens.

    What a caption head provides (docs/design.md, "Caption heads"):
    :meth:`encode`, :meth:`cross_kv`, :meth:`embed_tokens`,
    :meth:`output_logits` and ``decoder``; ``BaseCaptionHead`` runs them for
    teacher forcing, the loss and the greedy and beam search.

    Args:
        memory_dim (int): Width of the memory tokens (the captioner sets it
            to the backbone's).
        hidden (int): GRU width. Defaults to 128.
        num_layers (int): Stacked GRU layers. Defaults to 1.
        max_length (int): Caption length, start token included. Defaults
            to 32.
        vocab: Output vocabulary (``None``, a vocabulary file or a list of
            captions: ``BaseCaptionHead``).
        loss (dict): The next-token loss. Defaults to
            ``CaptionCrossEntropyLoss``.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 memory_dim: int = 512,
                 hidden: int = 128,
                 num_layers: int = 1,
                 max_length: int = 32,
                 vocab=None,
                 loss: dict = dict(type='CaptionCrossEntropyLoss'),
                 init_cfg: Optional[dict] = None):
        super().__init__(max_length, vocab, loss, init_cfg=init_cfg)
        self.memory_proj = nn.Linear(memory_dim, hidden)
        self.word_embed = nn.Embedding(len(self.vocab), hidden)
        self.decoder = nn.ModuleList(GRULayer(hidden) for _ in range(num_layers))
        self.out = nn.Linear(hidden, len(self.vocab))

    def encode(self, memory: torch.Tensor) -> torch.Tensor:
        """Memory ``[B, T, D]`` -> the initial state ``[B, H]``."""
        return torch.tanh(self.memory_proj(memory.mean(1)))

    def cross_kv(self, encoded: torch.Tensor) -> List[torch.Tensor]:
        return [encoded for _ in self.decoder]

    def embed_tokens(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        return self.word_embed(tokens)  # a GRU needs no positions

    def output_logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(x)
