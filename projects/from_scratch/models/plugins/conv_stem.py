"""A convolutional patch embedding for ViTs trained from scratch."""
from typing import Sequence, Tuple, Union

import torch
from torch import nn

from mmidc.registry import MODELS

__all__ = ['ConvStem']


@MODELS.register_module()
class ConvStem(nn.Sequential):
    """3x3 stride-2 conv + BatchNorm + ReLU stages, then a patchifying conv.

    A patch embedding for :class:`~mmidc.models.clip4idc.CLIP4IDCBackbone`'s
    ``patch_embed`` (which sets ``patch_size`` and ``width``), a drop-in
    replacement for CLIP's ``conv1`` (a single ``patch x patch``
    stride-``patch`` conv): same input ``[N, 3, H, W]`` and output
    ``[N, width, H / patch, W / patch]``. Early convolutions give a ViT that
    starts from random weights the locality prior it otherwise has to learn
    (Xiao et al., "Early Convolutions Help Transformers See Better", 2021);
    on the synthetic CLEVR-Change-style set the tiny CPU model does not learn
    to see the change without them (docs/from_scratch.md). Not for CLIP weights:
    their ``conv1`` is a single patch conv.

    Args:
        patch_size (int | tuple[int, int]): Total stride, square; a power
            of two times the final conv's kernel.
        width (int): Output channels (the ViT width).
        channels (Sequence[int]): Output channels of the stride-2 stages;
            ``2 ** len(channels)`` must divide ``patch_size``.
    """

    def __init__(self, patch_size: Union[int, Tuple[int, int]], width: int,
                 channels: Sequence[int] = (32, 64, 128)):
        if not isinstance(patch_size, int):
            if len(set(patch_size)) != 1:
                raise ValueError(f'ConvStem needs a square patch, got '
                                 f'{tuple(patch_size)}')
            patch_size = patch_size[0]
        stride = 2**len(channels)
        if not channels or patch_size % stride:
            raise ValueError(f'conv stem: {len(channels)} stride-2 stages '
                             f'(stride {stride}) must divide patch_size='
                             f'{patch_size}')
        layers, in_ch = [], 3
        for out_ch in channels:
            layers += [nn.Conv2d(in_ch, out_ch, 3, 2, 1, bias=False),
                       nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True)]
            in_ch = out_ch
        rest = patch_size // stride
        layers.append(nn.Conv2d(in_ch, width, rest, rest))
        super().__init__(*layers)  # [N, 3, H, W] -> [N, width, H/p, W/p]
        self.channels = tuple(channels)

    def forward(self, x: torch.Tensor, return_features: bool = False):
        """``[N, 3, H, W]`` -> ``[N, width, H/p, W/p]``; with
        ``return_features`` also the output of every stride-2 stage, a list
        of ``[N, channels[i], H / 2^(i+1), W / 2^(i+1)]``."""
        # Channels-last input: oneDNN's convolutions (forward and backward)
        # run faster in it on CPU (the tiny config's stem, 32 images of
        # 96x144, forward + backward on the 2-core machine: 0.145 -> 0.114 s);
        # the output goes back to the default layout for the ViT's flatten.
        x = x.contiguous(memory_format=torch.channels_last)
        if not return_features:
            return super().forward(x).contiguous()  # [N, width, H/p, W/p]
        layers, features = list(self), []
        for i in range(0, len(layers) - 1, 3):  # conv, BN, ReLU per stage
            x = layers[i + 2](layers[i + 1](layers[i](x)))
            features.append(x)  # channels-last
        return layers[-1](x).contiguous(), features
