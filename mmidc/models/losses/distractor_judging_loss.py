"""Distractor judging: a real change or only a viewpoint/lighting change."""
import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['DistractorJudgingLoss']


@MODELS.register_module()
class DistractorJudgingLoss(nn.Module):
    """Two-way cross-entropy: is the pair a semantic change (label 1) or a
    distractor, a no-change pair whose images differ only in viewpoint or
    lighting (label 0)? Pairs labelled ``ignore_index`` (data sets that do
    not mark distractors) do not count; a batch with none left gives 0.

    Args:
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
        ignore_index (int): Label of the pairs left out. Defaults to -100.
    """

    def __init__(self, loss_weight: float = 1.0, ignore_index: int = -100):
        super().__init__()
        self.loss_weight = loss_weight
        self.ignore_index = ignore_index

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Args:
            logits (Tensor): ``[B, 2]`` scores of (distractor, change).
            labels (Tensor): ``[B]`` 0, 1 or ``ignore_index``.

        Returns:
            Tensor: the weighted scalar loss.
        """
        if logits.ndim != 2 or logits.shape[1] != 2:
            raise ValueError(f'logits must be [B, 2], got {tuple(logits.shape)}')
        if not (labels != self.ignore_index).any():
            return logits.sum() * 0.0
        return self.loss_weight * F.cross_entropy(
            logits.float(), labels, ignore_index=self.ignore_index)
