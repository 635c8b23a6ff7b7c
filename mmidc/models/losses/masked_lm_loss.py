"""Cross-entropy of the words at masked caption positions."""
import torch

from mmidc.registry import MODELS
from .caption_cross_entropy_loss import CaptionCrossEntropyLoss

__all__ = ['MaskedLMLoss']


@MODELS.register_module()
class MaskedLMLoss(CaptionCrossEntropyLoss):
    """Masked language modelling: predict the original word at each masked
    caption position (IDC-PCL's MLM pre-training task and its seq2seq
    fine-tuning objective).

    ``loss = mean over masked positions of -log softmax(logits)[target]``;
    positions whose target is ``ignore_index`` (the unmasked ones) do not
    count. A batch without a masked position gives 0 (with a gradient path,
    so that every parameter still takes part in the step).

    Args:
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
        ignore_index (int): Target value of the positions that do not
            count. Defaults to -100.
        label_smoothing (float): Cross-entropy label smoothing. Defaults
            to 0.
    """

    def __init__(self, loss_weight: float = 1.0, ignore_index: int = -100,
                 label_smoothing: float = 0.0):
        super().__init__(ignore_index=ignore_index,
                         label_smoothing=label_smoothing,
                         loss_weight=loss_weight)

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Args:
            logits (Tensor): ``[..., V]`` word scores.
            targets (Tensor): ``[...]`` word ids, ``ignore_index`` where
                nothing is predicted.

        Returns:
            Tensor: the weighted scalar loss.
        """
        logits = logits.float().flatten(0, -2)  # [M, V]
        targets = targets.flatten()  # [M]
        if not (targets != self.ignore_index).any():
            return logits.sum() * 0.0
        return super().forward(logits, targets)
