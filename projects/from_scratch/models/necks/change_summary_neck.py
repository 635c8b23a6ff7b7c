"""Summary tokens of a pair encoder's output: segment maxima, change readouts."""
from typing import Sequence

import torch
from torch import nn

from mmidc.registry import MODELS

__all__ = ['ChangeSummaryNeck']


@MODELS.register_module()
class ChangeSummaryNeck(nn.Module):
    """A few tokens that summarise the pair, for a captioner trained from scratch.

    From the pair encoder's tokens ``[B, S(n+1), D]`` it makes ``S + 2K``
    tokens ``[B, S + 2K, D]``:

    - per segment, the channel-wise max over its tokens, so a head can read
      the changed object without first finding it by attention;
    - ``K`` change-attention readouts: each scores the positions of the pair
      (a linear map of ``[before, after, |after - before|]`` at the same
      position), takes the softmax over positions, and reads a *before* and
      an *after* token as the weighted sums of the two images' tokens
      (K before-tokens, then K after-tokens), so a head reads the changed
      object itself instead of a scene-wide pool.

    The captioner appends them to the caption head's memory (its
    ``extra_tokens``) and feeds them to an auxiliary head
    (:class:`BagOfWordsHead`). docs/from_scratch.md has the measurements.

    Args:
        in_channels (int): Token width ``D`` (set by the algorithm).
        segments (Sequence[str]): The encoder's segment names (set by the
            algorithm); ``'before'`` and ``'after'`` are read by the change
            readouts.
        change_tokens (int): ``K``, the number of change readouts (0: none).
            Default 2.
    """

    def __init__(self, in_channels: int,
                 segments: Sequence[str] = ('before', 'after'),
                 change_tokens: int = 2):
        super().__init__()
        if change_tokens < 0:
            raise ValueError(f'change_tokens must be >= 0, got {change_tokens}')
        if change_tokens and not {'before', 'after'} <= set(segments):
            raise ValueError("change readouts need 'before' and 'after' "
                             f'segments, got {tuple(segments)}')
        self.segments = tuple(segments)
        self.change_tokens = change_tokens
        self.change_score = (nn.Linear(3 * in_channels, change_tokens)
                             if change_tokens else None)

    @property
    def num_tokens(self) -> int:
        """Tokens per pair of the output, ``S + 2K``."""
        return len(self.segments) + 2 * self.change_tokens

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``[B, S(n+1), D]`` -> ``[B, S + 2K, D]``."""
        B, T, D = tokens.shape
        S = len(self.segments)
        if T % S:
            raise ValueError(f'{T} tokens do not split into the segments '
                             f'{self.segments}')
        segments = tokens.view(B, S, T // S, D)  # [B, S, n+1, D]
        summary = segments.amax(2)  # [B, S, D]: max over each segment's tokens
        if self.change_score is None:
            return summary
        before = segments[:, self.segments.index('before')]  # [B, n+1, D]
        after = segments[:, self.segments.index('after')]  # [B, n+1, D]
        features = torch.cat([before, after, (after - before).abs()], -1)  # [B, n+1, 3D]
        weights = self.change_score(features).softmax(1)  # [B, n+1, K], over positions
        weights = weights.transpose(1, 2)  # [B, K, n+1]
        change = torch.cat([weights @ before, weights @ after], 1)  # [B, 2K, D]
        return torch.cat([summary, change], 1)  # [B, S+2K, D]
