"""MVCL against the model's own predictions at the unmasked positions."""
from typing import Callable

import torch

from mmidc.registry import MODELS
from .masked_visual_contrastive_loss import MaskedVisualContrastiveLoss

__all__ = ['PredictedNegativeVisualContrastiveLoss']


@MODELS.register_module()
class PredictedNegativeVisualContrastiveLoss(MaskedVisualContrastiveLoss):
    """:class:`MaskedVisualContrastiveLoss` whose negatives are the model's
    predictions at the batch's unmasked positions (the published IDC-PCL
    code's MVCL), trained through, instead of the original features there.

    Args:
        temperature (float): As in :class:`MaskedVisualContrastiveLoss`.
        exclude_counterpart (bool): As in
            :class:`MaskedVisualContrastiveLoss`.
        loss_weight (float): As in :class:`MaskedVisualContrastiveLoss`.
    """

    def negatives(self, features: torch.Tensor, mask: torch.Tensor,
                  regress: Callable[[torch.Tensor], torch.Tensor]
                  ) -> torch.Tensor:
        """``[U, C]``: ``regress(~mask)``, the predictions at the unmasked
        positions (arguments as in
        :meth:`MaskedVisualContrastiveLoss.negatives`)."""
        return regress(~mask)
