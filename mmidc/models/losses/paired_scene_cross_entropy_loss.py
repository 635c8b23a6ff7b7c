"""The published CLIP4IDC code's CLEVR-Change captioning loss."""
import torch
import torch.nn.functional as F

from mmidc.registry import MODELS
from .caption_cross_entropy_loss import CaptionCrossEntropyLoss

__all__ = ['PairedSceneCrossEntropyLoss']


@MODELS.register_module()
class PairedSceneCrossEntropyLoss(CaptionCrossEntropyLoss):
    """Mean next-token cross-entropy over the change pairs' tokens plus the
    mean over the no-change pairs' tokens.

    Both pairs of a scene are in one batch, in :class:`PairedSceneSampler`'s
    order (change pairs at even rows, no-change pairs at odd ones): the
    batch must be even and come from that sampler (``check_config``
    enforces it).

    Args:
        ignore_index (int): As in :class:`CaptionCrossEntropyLoss`.
        label_smoothing (float): As in :class:`CaptionCrossEntropyLoss`.
        loss_weight (float): As in :class:`CaptionCrossEntropyLoss`.
    """

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Args:
            logits (Tensor): Next-token scores ``[B, L, V]``, B even.
            targets (Tensor): The next tokens' ids ``[B, L]``.

        Returns:
            Tensor: the weighted scalar loss.
        """
        B = logits.shape[0]
        if B % 2:
            raise ValueError(
                f'PairedSceneCrossEntropyLoss needs an even batch of (change, '
                f'no-change) pairs from PairedSceneSampler, got {B}')
        token_loss = F.cross_entropy(
            logits.flatten(0, 1), targets.flatten(),  # [B*L, V], [B*L]
            ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
            reduction='none').view(B, -1)  # [B, L], 0 at ignored targets
        valid = targets != self.ignore_index  # [B, L]
        # change pairs at even rows, no-change pairs at odd rows
        loss = sum(token_loss[g::2].sum() / valid[g::2].sum() for g in (0, 1))
        return self.loss_weight * loss
