"""Named token segments of a pair encoder's output."""
from typing import Dict, Sequence

import torch

__all__ = ['split_segments']


def split_segments(tokens: torch.Tensor,
                   names: Sequence[str]) -> Dict[str, torch.Tensor]:
    """Split ``[B, S*T, D]`` tokens into ``{name: [B, T, D]}``, S = len(names).

    A pair encoder's output is its segments one after another, each of the
    same length (e.g. ``before``, ``after``, ``diff``, CLS first in each).
    """
    B, N, D = tokens.shape
    if N % len(names):
        raise ValueError(f'{N} tokens do not split into the {len(names)} '
                         f'segments {tuple(names)}')
    parts = tokens.view(B, len(names), N // len(names), D)  # [B, S, T, D]
    return {name: parts[:, i] for i, name in enumerate(names)}
