"""Batches image pairs and normalises them with CLIP's mean / std."""
from typing import Optional, Sequence

import torch
from mmengine.model import BaseDataPreprocessor

from mmidc.registry import MODELS

__all__ = ['IDCDataPreprocessor']

CLIP_MEAN = (122.770938, 116.7460125, 104.09373615)
CLIP_STD = (68.5005327, 66.6321579, 70.32316305)


@MODELS.register_module()
class IDCDataPreprocessor(BaseDataPreprocessor):
    """Stack ``[2, 3, H, W]`` uint8 pairs into normalised ``[B, 2, 3, H, W]``.

    ``inputs`` is a list of per-sample tensors (as collated by
    ``pseudo_collate``) or an already stacked ``[B, 2, 3, H, W]`` tensor.
    Images are RGB on the 0-255 scale; ``data_samples`` are moved to the
    model's device and passed through unchanged.

    Args:
        mean (Sequence[float]): Per-channel mean, 0-255 scale. Default CLIP's.
        std (Sequence[float]): Per-channel std, 0-255 scale. Default CLIP's.
        bgr_to_rgb (bool): Flip the channel order first (for BGR inputs).
            Default False.
        non_blocking (bool): Asynchronous host-to-device copies.
    """

    def __init__(self,
                 mean: Sequence[float] = CLIP_MEAN,
                 std: Sequence[float] = CLIP_STD,
                 bgr_to_rgb: bool = False,
                 non_blocking: Optional[bool] = False):
        super().__init__(non_blocking=non_blocking)
        if len(mean) != 3 or len(std) != 3:
            raise ValueError(f'mean and std need 3 values each, got '
                             f'mean={mean}, std={std}')
        if any(s <= 0 for s in std):
            raise ValueError(f'std must be positive, got {std}')
        self.bgr_to_rgb = bgr_to_rgb
        self.register_buffer('mean',
                             torch.tensor(mean).view(1, 1, 3, 1, 1), False)
        self.register_buffer('std',
                             torch.tensor(std).view(1, 1, 3, 1, 1), False)

    def forward(self, data: dict, training: bool = False) -> dict:
        """Return ``{'inputs': float [B, 2, 3, H, W], 'data_samples'}``."""
        data = self.cast_data(data)  # to device
        inputs = data['inputs']
        if isinstance(inputs, (list, tuple)):
            shapes = {tuple(x.shape) for x in inputs}
            if len(shapes) != 1:
                raise ValueError(f'inputs of one batch differ in shape: '
                                 f'{sorted(shapes)} (resize in the pipeline)')
            inputs = torch.stack(list(inputs))  # [B, 2, 3, H, W]
        if inputs.ndim != 5 or inputs.shape[1:3] != (2, 3):
            raise ValueError(f'inputs must be [B, 2, 3, H, W] image pairs, '
                             f'got {tuple(inputs.shape)}')
        if self.bgr_to_rgb:
            inputs = inputs.flip(2)
        inputs = (inputs.float() - self.mean) / self.std
        return dict(inputs=inputs, data_samples=data.get('data_samples'))
