"""The pair vector of a pair encoder's tokens."""
from typing import Sequence

import torch
from torch import nn

from mmidc.registry import MODELS

__all__ = ['PairPooling']


@MODELS.register_module()
class PairPooling(nn.Module):
    """Pool a pair encoder's tokens ``[B, S(n+1), D]`` into one vector ``[B, D]``.

    Modes:

    - ``'cls'`` (CLIP4IDC's): the mean of the ``before`` and ``after``
      segments' CLS tokens.
    - ``'mean'``: the mean of all tokens.
    - ``'max'``: the channel-wise max of all tokens, where one small changed
      object is not averaged away. For encoders trained from random weights,
      whose CLS outputs start nearly input-independent, so that contrastive
      training collapses both towers to one vector (docs/from_scratch.md).

    Args:
        segments (Sequence[str]): The encoder's segment names (set by the
            algorithm from its backbone). Default ``('before', 'after')``.
        mode (str): ``'cls'``, ``'mean'`` or ``'max'``. Default ``'cls'``.
    """

    MODES = ('cls', 'mean', 'max')

    def __init__(self, segments: Sequence[str] = ('before', 'after'),
                 mode: str = 'cls'):
        super().__init__()
        if mode not in self.MODES:
            raise ValueError(f'PairPooling.mode must be one of {self.MODES}, '
                             f'got {mode!r}')
        if mode == 'cls' and not {'before', 'after'} <= set(segments):
            raise ValueError("PairPooling(mode='cls') needs 'before' and "
                             f"'after' segments, got {tuple(segments)}")
        self.segments = tuple(segments)
        self.mode = mode

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``[B, S(n+1), D]`` -> ``[B, D]``."""
        if self.mode == 'mean':
            return tokens.mean(1)
        if self.mode == 'max':
            return tokens.amax(1)
        length = tokens.shape[1] // len(self.segments)  # n + 1
        before = self.segments.index('before') * length
        after = self.segments.index('after') * length
        return (tokens[:, before] + tokens[:, after]) / 2
