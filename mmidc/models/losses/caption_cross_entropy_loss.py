"""Next-token cross-entropy of a caption decoder."""
import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['CaptionCrossEntropyLoss']


@MODELS.register_module()
class CaptionCrossEntropyLoss(nn.Module):
    """Mean cross-entropy of the next caption token over the batch's tokens,
    padding ignored (the captioning loss of the paper).

    Args:
        ignore_index (int): Target id that does not count (the caption
            head sets it to its vocabulary's padding id). Defaults to 0.
        label_smoothing (float): Cross-entropy label smoothing. Defaults
            to 0.
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
    """

    def __init__(self, ignore_index: int = 0, label_smoothing: float = 0.0,
                 loss_weight: float = 1.0):
        super().__init__()
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f'label_smoothing must be in [0, 1), got '
                             f'{label_smoothing}')
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.loss_weight = loss_weight

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Args:
            logits (Tensor): Next-token scores ``[B, L, V]`` (any leading
                shape ``[..., V]``).
            targets (Tensor): The next tokens' ids ``[B, L]`` (``[...]``).

        Returns:
            Tensor: the weighted scalar loss.
        """
        loss = F.cross_entropy(
            logits.flatten(0, -2), targets.flatten(),  # [B*L, V], [B*L]
            ignore_index=self.ignore_index, label_smoothing=self.label_smoothing)
        return self.loss_weight * loss
