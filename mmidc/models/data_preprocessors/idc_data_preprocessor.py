"""Batches image pairs and normalises them with CLIP's mean / std."""
from collections import defaultdict
from typing import List, Optional, Sequence

import torch
from mmengine.model import BaseDataPreprocessor

from mmidc.registry import MODELS

__all__ = ['IDCDataPreprocessor', 'build_data_preprocessor']

CLIP_MEAN = (122.770938, 116.7460125, 104.09373615)
CLIP_STD = (68.5005327, 66.6321579, 70.32316305)


@MODELS.register_module()
class IDCDataPreprocessor(BaseDataPreprocessor):
    """Stack ``[2, 3, H, W]`` uint8 pairs into normalised ``[B, 2, 3, H, W]``.

    ``inputs`` is a list of per-sample tensors (as collated by
    ``pseudo_collate``) or an already stacked ``[B, 2, 3, H, W]`` tensor
    (``idc_collate``). Images are RGB on the 0-255 scale; ``data_samples``
    are moved to the model's device and passed through unchanged.

    Transfers to an accelerator are batched: the pairs are stacked on the
    host first and cross in one copy (uint8, a quarter of the float bytes),
    and the tensors of all data samples (``text_tokens`` ...) cross in one
    copy per dtype, instead of one blocking copy, and so one host-device
    synchronisation, per sample and field. Normalisation runs on the device.
    The values are the same as copying sample by sample.

    Args:
        mean (Sequence[float]): Per-channel mean, 0-255 scale. Default CLIP's.
        std (Sequence[float]): Per-channel std, 0-255 scale. Default CLIP's.
        bgr_to_rgb (bool): Flip the channel order first (for BGR inputs).
            Default False.
        non_blocking (bool, optional): Asynchronous host-to-device copies.
            None (default): asynchronous whenever the target is not the CPU
            (safe for host-to-device copies; with pinned host memory, from
            ``pin_memory=True`` loaders, the copy also overlaps compute).
    """

    def __init__(self,
                 mean: Sequence[float] = CLIP_MEAN,
                 std: Sequence[float] = CLIP_STD,
                 bgr_to_rgb: bool = False,
                 non_blocking: Optional[bool] = None):
        super().__init__(non_blocking=bool(non_blocking))
        self.non_blocking_cfg = non_blocking
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

    def _to_device(self, tensor: torch.Tensor) -> torch.Tensor:
        if tensor.device == self._device:
            return tensor
        non_blocking = self.non_blocking_cfg
        if non_blocking is None:
            non_blocking = self._device.type != 'cpu'
        return tensor.to(self._device, non_blocking=bool(non_blocking))

    def samples_to_device(self, data_samples: Optional[List]) -> Optional[List]:
        """Move the tensors of all ``data_samples`` with one copy per dtype.

        Returns new data elements (as ``BaseDataElement.to`` does) whose
        tensors are views into the transferred buffer.
        """
        if data_samples is None or self._device.type == 'cpu':
            return self.cast_data(data_samples)
        moved = [ds.new() for ds in data_samples]
        groups = defaultdict(list)  # dtype -> [(sample index, key, tensor)]
        for i, ds in enumerate(data_samples):
            for key, value in ds.items():
                if torch.is_tensor(value):
                    if value.device != self._device:
                        groups[value.dtype].append((i, key, value))
                elif hasattr(value, 'to'):
                    moved[i].set_field(value.to(self._device), key)
        for entries in groups.values():
            flat = torch.cat([v.reshape(-1) for _, _, v in entries])  # [N]
            if self._device.type == 'cuda' and not flat.is_pinned():
                flat = flat.pin_memory()  # small: an asynchronous copy
            flat = self._to_device(flat)
            pieces = flat.split([v.numel() for _, _, v in entries])
            for (i, key, value), piece in zip(entries, pieces):
                moved[i].set_field(piece.view(value.shape), key)
        return moved

    def forward(self, data: dict, training: bool = False) -> dict:
        """Return ``{'inputs': float [B, 2, 3, H, W], 'data_samples'}``."""
        inputs = data['inputs']
        if isinstance(inputs, (list, tuple)):
            shapes = {tuple(x.shape) for x in inputs}
            if len(shapes) != 1:
                raise ValueError(f'inputs of one batch differ in shape: '
                                 f'{sorted(shapes)} (resize in the pipeline)')
            inputs = torch.stack(list(inputs))  # [B, 2, 3, H, W], on the host
        if inputs.ndim != 5 or inputs.shape[1:3] != (2, 3):
            raise ValueError(f'inputs must be [B, 2, 3, H, W] image pairs, '
                             f'got {tuple(inputs.shape)}')
        inputs = self._to_device(inputs)  # one copy, still uint8
        if self.bgr_to_rgb:
            inputs = inputs.flip(2)
        inputs = (inputs.float() - self.mean) / self.std
        return dict(inputs=inputs,
                    data_samples=self.samples_to_device(
                        data.get('data_samples')))


def build_data_preprocessor(cfg=None):
    """An algorithm's data preprocessor: ``IDCDataPreprocessor`` by default;
    a config dict is built in mmidc's registry (MMEngine's ``BaseModel``
    would look it up in its own); a module passes through."""
    if cfg is None:
        cfg = dict(type='IDCDataPreprocessor')
    return MODELS.build(cfg) if isinstance(cfg, dict) else cfg
