"""Cross-entropy of the words at masked caption positions."""
import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['MaskedLMLoss']


@MODELS.register_module()
class MaskedLMLoss(nn.Module):
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
        super().__init__()
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f'label_smoothing must be in [0, 1), got '
                             f'{label_smoothing}')
        self.loss_weight = loss_weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

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
        loss = F.cross_entropy(logits, targets, ignore_index=self.ignore_index,
                               label_smoothing=self.label_smoothing)
        return self.loss_weight * loss
