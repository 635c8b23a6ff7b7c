"""Fine-grained difference aligning (FDA) with hard negative captions."""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['DifferenceAlignmentLoss']


@MODELS.register_module()
class DifferenceAlignmentLoss(nn.Module):
    """NCE between a pair and its caption against hard negative captions
    (IDC-PCL's FDA).

    Each pair is scored with ``1 + K`` captions, its own first and ``K``
    hard negatives (retrieved, word-replaced, role-confused) after it. The
    score of candidate ``k`` is the cosine similarity of the pair vector and
    the caption vector computed with that candidate, divided by ``tau2``;
    the loss is the cross-entropy of the ``1 + K`` scores with the own
    caption as the label::

        s[b, k] = cos(pair[b, k], text[b, k]) / tau2
        loss = mean_b -log softmax(s[b])[0]

    Candidates marked invalid (``valid[b, k] = False``) are left out of the
    softmax. Every pair of the batch is read with its ``1 + K`` candidates
    (:meth:`num_pairs`).

    Args:
        temperature (float): ``tau2``. Defaults to 1.0 (the published
            code's).
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
    """

    def __init__(self, temperature: float = 1.0, loss_weight: float = 1.0):
        super().__init__()
        if temperature <= 0:
            raise ValueError(f'temperature must be > 0, got {temperature}')
        self.temperature = temperature
        self.loss_weight = loss_weight

    def num_pairs(self, batch_size: int, num_negatives: int) -> int:
        """How many pairs of a batch an FDA step reads (the first ones).

        Args:
            batch_size (int): Pairs in the batch, ``B``.
            num_negatives (int): Hard negatives per pair, ``K``.

        Returns:
            int: ``B``, all of them (``B (1 + K)`` sequences).
        """
        return batch_size

    def forward(self, pair: torch.Tensor, text: torch.Tensor,
                valid: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Args:
            pair (Tensor): ``[B, 1+K, D]`` pair vectors (one per candidate:
                in a joint transformer they depend on the caption read), or
                ``[B, D]`` shared by all candidates.
            text (Tensor): ``[B, 1+K, D]`` caption vectors, own caption
                first.
            valid (Tensor, optional): ``[B, 1+K]`` bool; column 0 must be
                True.

        Returns:
            Tensor: the weighted scalar loss.
        """
        if text.ndim != 3:
            raise ValueError(f'text must be [B, 1+K, D], got {tuple(text.shape)}')
        if pair.ndim == 2:
            pair = pair[:, None].expand_as(text)  # [B, 1+K, D]
        sims = F.cosine_similarity(pair.float(), text.float(), dim=-1)  # [B, 1+K]
        logits = sims / self.temperature
        if valid is not None:
            if not valid[:, 0].all():
                raise ValueError('valid[:, 0] (the own caption) must be True')
            logits = logits.masked_fill(~valid, float('-inf'))
        labels = logits.new_zeros(logits.shape[0], dtype=torch.long)
        return self.loss_weight * F.cross_entropy(logits, labels)
