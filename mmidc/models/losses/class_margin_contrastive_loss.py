"""Contrast of image vectors by class, with a margin (IDC-PCL's NABirds
stage)."""
import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['ClassMarginContrastiveLoss']


@MODELS.register_module()
class ClassMarginContrastiveLoss(nn.Module):
    """Pull image vectors of one class together and push those of other
    classes below a cosine margin, as the published IDC-PCL code's NABirds
    task does. With ``c_ij`` the cosine similarity of vectors ``i`` and
    ``j`` of the batch (``n`` of them, ``i = j`` included)::

        loss = sum_ij [y_i = y_j] (1 - c_ij) + [y_i != y_j] max(0, c_ij - margin)
        loss = loss / n^2

    Args:
        margin (float): Cosine below which other classes' vectors cost
            nothing. Defaults to 0.4 (the published ``alpha``).
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
    """

    def __init__(self, margin: float = 0.4, loss_weight: float = 1.0):
        super().__init__()
        self.margin = margin
        self.loss_weight = loss_weight

    def forward(self, features: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Args:
            features (Tensor): ``[n, D]`` vectors.
            labels (Tensor): ``[n]`` class indices.

        Returns:
            Tensor: the weighted scalar loss.
        """
        if features.ndim != 2 or labels.shape != features.shape[:1]:
            raise ValueError(f'features must be [n, D] and labels [n], got '
                             f'{tuple(features.shape)} and {tuple(labels.shape)}')
        f = F.normalize(features.float(), dim=-1)
        cos = f @ f.t()  # [n, n]
        same = labels[:, None] == labels[None, :]
        loss = torch.where(same, 1 - cos, (cos - self.margin).clamp(min=0)).sum()
        return self.loss_weight * loss / features.shape[0] ** 2
