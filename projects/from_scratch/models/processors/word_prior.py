"""WordPrior: a per-sample bias added to the decoder's next-word logits."""
import torch

__all__ = ['WordPrior', 'rows_per_sample']


def rows_per_sample(bias: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """``bias`` ``[B, ...]`` with each sample's row repeated for the search's
    ``N = B * beams`` rows of ``scores`` (a sample's beams in a row)."""
    B, N = bias.shape[0], scores.shape[0]
    if N % B:
        raise ValueError(f'{N} rows of scores for a prior of {B} samples: '
                         'expected a multiple (the beams of each sample)')
    return bias if N == B else bias.repeat_interleave(N // B, dim=0)


class WordPrior:
    """Add a per-sample word prior to every step's logits (a logits
    processor of the search, :mod:`mmidc.models.generation.generation`).

    ``processor(tokens, scores)`` returns ``scores + bias`` (the bias in the
    scores' dtype, its rows repeated for the beams); ``tokens`` are not read.
    It is :meth:`BagOfWordsHead.logit_bias` in decoding, what the caption
    head adds in teacher forcing.

    Args:
        bias (Tensor): ``[B, V]``, a bias per sample and vocabulary word.
    """

    def __init__(self, bias: torch.Tensor):
        if bias.dim() != 2:
            raise ValueError(f'a word prior is [B, V], got shape {tuple(bias.shape)}')
        self.bias = bias

    def __call__(self, tokens: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        return scores + rows_per_sample(self.bias, scores).to(scores.dtype)
