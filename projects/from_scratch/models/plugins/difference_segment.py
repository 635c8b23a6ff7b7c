"""An extra token segment for CLIP4IDCBackbone: the pair's difference."""
from typing import List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

from mmidc.registry import MODELS
from .aligned_difference import AlignedDifference

__all__ = ['DifferenceSegment']


@MODELS.register_module()
class DifferenceSegment(nn.Module):
    """``after - before`` of the intra blocks' outputs, position by position.

    A segment of ``n + 1`` tokens (CLS first) for
    :class:`~mmidc.models.clip4idc.CLIP4IDCBackbone`'s ``extra_segments``. An
    explicit difference is what most IDC models since DUDA (Park et al.,
    2019) feed their decoders; CLIP's pretrained features let CLIP4IDC's
    inter attention find the change without it, a ViT trained from random
    weights on a CPU budget does not (docs/from_scratch.md).

    With ``aligned=True`` an :class:`AlignedDifference` of the patch
    embedding's early feature maps (stage ``alignment_stage`` of a
    :class:`ConvStem`, or the patch embeddings of a plain patch conv) is
    added to the patch tokens: each position compared with its best match
    within ``alignment_radius`` cells of the other image, so that a small
    camera move between the images does not read as a change.

    Args:
        width (int): Token width (set by the backbone).
        stem_channels (Sequence[int]): Channels of the patch embedding's
            feature maps (set by the backbone).
        name (str): The segment's name in the backbone's ``segments``.
            Default ``'diff'``.
        aligned (bool): Add the aligned difference. Default False.
        alignment_radius (int): Its search radius in cells of the compared
            map. Default 1.
        alignment_stage (int): Which feature map it compares (an index into
            ``stem_channels``). Default -1 (the last).
    """

    def __init__(self,
                 width: int,
                 stem_channels: Sequence[int],
                 name: str = 'diff',
                 aligned: bool = False,
                 alignment_radius: int = 1,
                 alignment_stage: int = -1):
        super().__init__()
        self.name = name
        self.alignment_stage = alignment_stage
        self.aligned = None
        if aligned:
            stages = len(stem_channels)
            if not -stages <= alignment_stage < stages:
                raise ValueError(f'DifferenceSegment: alignment_stage='
                                 f'{alignment_stage}, but the patch '
                                 f'embedding has {stages} feature map(s)')
            self.aligned = AlignedDifference(stem_channels[alignment_stage],
                                             width, alignment_radius)

    @property
    def needs_stem_features(self) -> bool:
        return self.aligned is not None

    def forward(self, intra: torch.Tensor,
                stem_features: Optional[List[torch.Tensor]],
                grid: Tuple[int, int]) -> torch.Tensor:
        """``intra`` ``[2, B, n+1, D]`` (before, after) -> ``[B, n+1, D]``."""
        diff = intra[1] - intra[0]  # [B, n+1, D]: after - before
        if self.aligned is not None:
            features = stem_features[self.alignment_stage]  # [2B, C, h', w']
            B = intra.shape[1]
            aligned = self.aligned(features[:B], features[B:], grid)  # [B, n, D]
            diff = diff + F.pad(aligned, (0, 0, 1, 0))  # patch tokens, not CLS
        return diff
