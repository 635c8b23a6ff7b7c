"""Symmetric InfoNCE where identical captions are positives of each other's
pairs."""
import torch

from mmidc.registry import MODELS
from .symmetric_info_nce_loss import SymmetricInfoNCELoss

__all__ = ['MultiPositiveInfoNCELoss']


@MODELS.register_module()
class MultiPositiveInfoNCELoss(SymmetricInfoNCELoss):
    """:class:`SymmetricInfoNCELoss` with soft multi-positive targets.

    Captions with identical token sequences in a batch (frequent on
    CLEVR-Change: "the scene remains the same") are all positives of each
    other's pairs: the target of row ``i`` is the uniform distribution over
    ``{j : tokens_j == tokens_i}``, in both directions. Without duplicates
    this is :class:`SymmetricInfoNCELoss`, which treats a duplicate as a
    negative of the other pairs it describes.

    Args:
        two_way_reduction (str): As in :class:`SymmetricInfoNCELoss`.
        loss_weight (float): As in :class:`SymmetricInfoNCELoss`.
    """

    def targets(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """Soft targets ``[B, B]``: uniform over identical captions."""
        same = (text_tokens[:, None, :] == text_tokens[None, :, :]).all(-1)
        same = same.float()  # [B, B], symmetric, diagonal 1
        return same / same.sum(dim=1, keepdim=True)
