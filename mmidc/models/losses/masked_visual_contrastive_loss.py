"""Masked visual contrastive learning (MVCL)."""
import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS

__all__ = ['MaskedVisualContrastiveLoss']


@MODELS.register_module()
class MaskedVisualContrastiveLoss(nn.Module):
    """Contrastive reconstruction of masked image features (IDC-PCL's MVCL).

    The prediction at masked position ``i`` must be closer, in cosine
    similarity divided by the temperature ``tau1``, to the original feature
    of that position than to every other candidate: the original features
    of the other masked positions of the batch and the ``negatives`` (the
    batch's unmasked features). With ``P`` the predictions ``[M, C]``,
    ``T`` the originals ``[M, C]`` and ``N`` the negatives ``[U, C]``, all
    L2-normalised::

        logits = [P T^T, P N^T] / tau1          # [M, M + U]
        loss = cross_entropy(logits, arange(M))

    Args:
        temperature (float): ``tau1``. Defaults to 1.0 (the public IDC-PCL
            code's value).
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
    """

    def __init__(self, temperature: float = 1.0, loss_weight: float = 1.0):
        super().__init__()
        if temperature <= 0:
            raise ValueError(f'temperature must be > 0, got {temperature}')
        self.temperature = temperature
        self.loss_weight = loss_weight

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor,
                negatives: torch.Tensor) -> torch.Tensor:
        """Args:
            predictions (Tensor): ``[M, C]`` outputs at the masked positions,
                mapped to the feature space.
            targets (Tensor): ``[M, C]`` the original features there.
            negatives (Tensor): ``[U, C]`` features of unmasked positions
                (``U`` may be 0).

        Returns:
            Tensor: the weighted scalar loss (0 when ``M == 0``).
        """
        if predictions.shape != targets.shape:
            raise ValueError(f'predictions {tuple(predictions.shape)} and '
                             f'targets {tuple(targets.shape)} differ in shape')
        if predictions.shape[0] == 0:
            return predictions.sum() * 0.0
        p = F.normalize(predictions.float(), dim=-1)  # [M, C]
        candidates = torch.cat([targets, negatives]).float()  # [M+U, C]
        c = F.normalize(candidates, dim=-1)
        logits = p @ c.t() / self.temperature  # [M, M+U]
        labels = torch.arange(p.shape[0], device=p.device)
        return self.loss_weight * F.cross_entropy(logits, labels)
