"""Masked visual contrastive learning (MVCL)."""
from typing import Callable, Optional

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
    of the other masked positions of the batch and the negatives, which
    :meth:`negatives` chooses (here the original features at the batch's
    unmasked positions). With ``P`` the predictions ``[M, C]``, ``T`` the
    originals ``[M, C]`` and ``N`` the negatives ``[U, C]``, all
    L2-normalised::

        logits = [P T^T, P N^T] / tau1          # [M, M + U]
        loss = cross_entropy(logits, arange(M))

    Args:
        temperature (float): ``tau1``. Defaults to 1.0 (the public IDC-PCL
            code's value).
        exclude_counterpart (bool): Leave the same grid position of the
            other image out of a masked position's negatives
            (:meth:`negative_mask`; where the two images agree, its feature
            is the target's). Defaults to False (the published code keeps
            it).
        loss_weight (float): Multiplier of the loss. Defaults to 1.0.
    """

    def __init__(self, temperature: float = 1.0,
                 exclude_counterpart: bool = False,
                 loss_weight: float = 1.0):
        super().__init__()
        if temperature <= 0:
            raise ValueError(f'temperature must be > 0, got {temperature}')
        self.temperature = temperature
        self.exclude_counterpart = exclude_counterpart
        self.loss_weight = loss_weight

    def negatives(self, features: torch.Tensor, mask: torch.Tensor,
                  regress: Callable[[torch.Tensor], torch.Tensor]
                  ) -> torch.Tensor:
        """The negatives: one row per unmasked position of the batch, in the
        order of ``features[~mask]``.

        Args:
            features (Tensor): ``[B, 2, N, C]`` the original features
                (targets only: detached).
            mask (Tensor): ``[B, 2, N]`` bool, True at the masked positions.
            regress (Callable): Maps a bool ``[B, 2, N]`` selection of
                positions to the model's predictions there, ``[K, C]``
                (not used here).

        Returns:
            Tensor: ``[U, C]`` the original features at the unmasked
            positions.
        """
        return features[~mask]

    def negative_mask(self, mask: torch.Tensor) -> Optional[torch.Tensor]:
        """The negatives left out of each masked position's softmax.

        Args:
            mask (Tensor): ``[B, 2, N]`` bool, True at the masked positions
                (at most one image of a pair masked at a grid position).

        Returns:
            Tensor or None: ``[M, U]`` bool, True at each masked position's
            counterpart (same pair, same grid position, the other image)
            with ``exclude_counterpart``; None without.
        """
        if not self.exclude_counterpart:
            return None
        num_unmasked = int((~mask).sum())
        # each unmasked position's row among the negatives; -1 if masked
        index = torch.full(mask.shape, -1, dtype=torch.long, device=mask.device)
        index[~mask] = torch.arange(num_unmasked, device=mask.device)
        counterpart = index.flip(1)[mask]  # [M]
        if (counterpart < 0).any():
            raise ValueError('exclude_counterpart needs the other image '
                             'unmasked at every masked grid position')
        negative_mask = torch.zeros(counterpart.shape[0], num_unmasked,
                                    dtype=torch.bool, device=mask.device)
        negative_mask[torch.arange(counterpart.shape[0]), counterpart] = True
        return negative_mask

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor,
                negatives: torch.Tensor,
                negative_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Args:
            predictions (Tensor): ``[M, C]`` outputs at the masked positions,
                mapped to the feature space.
            targets (Tensor): ``[M, C]`` the original features there.
            negatives (Tensor): ``[U, C]`` negatives (``U`` may be 0).
            negative_mask (Tensor, optional): ``[M, U]`` bool, True where
                a negative is left out of that prediction's softmax.

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
        if negative_mask is not None:
            M, U = predictions.shape[0], negatives.shape[0]
            if negative_mask.shape != (M, U):
                raise ValueError(f'negative_mask must be [{M}, {U}], got '
                                 f'{tuple(negative_mask.shape)}')
            logits = torch.cat([logits[:, :M], logits[:, M:].masked_fill(
                negative_mask, float('-inf'))], 1)
        labels = torch.arange(p.shape[0], device=p.device)
        return self.loss_weight * F.cross_entropy(logits, labels)
