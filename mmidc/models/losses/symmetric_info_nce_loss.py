"""Symmetric InfoNCE of pair-caption logits, one positive per row."""
from typing import Dict

import torch
from torch import nn

from mmidc.registry import MODELS

__all__ = ['SymmetricInfoNCELoss']

TWO_WAY_REDUCTIONS = ('sum', 'mean')


@MODELS.register_module()
class SymmetricInfoNCELoss(nn.Module):
    """CLIP4IDC's contrastive loss ``L = L_p2t + L_t2p``.

    Each direction is the cross-entropy of the scaled similarity logits
    against :meth:`targets`: pair ``i`` should pick caption ``i`` among the
    batch's captions (``L_p2t``) and caption ``j`` pair ``j`` among the
    batch's pairs (``L_t2p``), each averaged over the batch.

    Args:
        two_way_reduction (str): How the two directions combine: ``'sum'``
            (the paper's ``L_p2t + L_t2p``) or ``'mean'`` (their average, as
            the published code and CLIP train). With ``'mean'`` each returned
            term is half its direction's cross-entropy, so that their sum,
            the training loss, is the average. Defaults to ``'sum'``.
        loss_weight (float): Multiplier of both terms. Defaults to 1.0.
    """

    def __init__(self, two_way_reduction: str = 'sum', loss_weight: float = 1.0):
        super().__init__()
        if two_way_reduction not in TWO_WAY_REDUCTIONS:
            raise ValueError(f'two_way_reduction must be one of '
                             f'{TWO_WAY_REDUCTIONS}, got {two_way_reduction!r}')
        self.two_way_reduction = two_way_reduction
        self.loss_weight = loss_weight

    def targets(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """Target distributions ``[B, B]`` (rows sum to 1): one-hot, each
        pair's own caption."""
        return torch.eye(text_tokens.shape[0], device=text_tokens.device)

    def forward(self, logits: torch.Tensor,
                text_tokens: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Args:
            logits (Tensor): Scaled similarities ``[B, B]``, pairs x
                captions; caption ``i`` describes pair ``i``.
            text_tokens (Tensor): The captions' token ids ``[B, L]``.

        Returns:
            dict: ``loss_p2t`` and ``loss_t2p``, weighted.
        """
        targets = self.targets(text_tokens)  # [B, B], rows sum to 1
        # pair i -> its captions; caption j -> the pairs it describes.
        # The targets are symmetric, so both directions use them.
        loss_p2t = -(targets * logits.log_softmax(dim=1)).sum(1).mean()
        loss_t2p = -(targets * logits.t().log_softmax(dim=1)).sum(1).mean()
        weight = self.loss_weight
        if self.two_way_reduction == 'mean':
            weight = weight / 2
        return dict(loss_p2t=weight * loss_p2t, loss_t2p=weight * loss_t2p)
