"""CountedWordPrior: a word prior that depends on how often the caption
already holds each word."""
import torch

from .word_prior import rows_per_sample

__all__ = ['CountedWordPrior', 'prefix_word_counts', 'counted_bias']


def prefix_word_counts(tokens: torch.Tensor, num_words: int) -> torch.Tensor:
    """How often each word occurs in each prefix of ``tokens``.

    Args:
        tokens (Tensor): compact ids ``[N, t]``, the start token first.
        num_words (int): the vocabulary size ``V``.

    Returns:
        Tensor: ``[N, t, V]``; row ``i`` counts the words of
        ``tokens[:, 1:i + 1]`` (the start token is not a word), what the
        decoder has written when it predicts position ``i + 1``.
    """
    N, t = tokens.shape
    hot = tokens.new_zeros(N, t, num_words)  # [N, t, V]
    hot[:, 1:].scatter_(2, tokens[:, 1:, None], 1)  # one-hot of each word
    return hot.cumsum(1)  # [N, t, V]


def counted_bias(bias: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """The bias each word gets given how often it was written.

    Args:
        bias (Tensor): ``[N, V]`` (returned as it is, broadcast over the
            positions of ``counts``) or counted, ``[N, K, V]``.
        counts (Tensor): ``[N, V]`` or ``[N, t, V]`` word counts
            (:func:`prefix_word_counts`).

    Returns:
        Tensor: the bias of ``counts``' shape: ``bias[n, min(c, K - 1), w]``
        for a word ``w`` written ``c`` times.
    """
    if bias.dim() == 2:
        return bias if counts.dim() == 2 else bias[:, None]  # [N, (1,) V]
    if bias.dim() != 3:
        raise ValueError('logit_bias must be [N, V] or counted [N, K, V], '
                         f'got shape {tuple(bias.shape)}')
    level = counts.clamp(max=bias.shape[1] - 1)
    if counts.dim() == 2:  # one step: [N, V] -> [N, 1, V]
        return bias.gather(1, level[:, None])[:, 0]  # [N, V]
    return bias.gather(1, level)  # [N, t, V]


class CountedWordPrior:
    """Add a counted word prior to every step's logits (a logits processor
    of the search, :mod:`mmidc.models.generation.generation`).

    The prior holds one row per number of times a word was already written:
    word ``w``, which the prefix ``tokens`` (after the start token) holds
    ``c_w`` times, gets ``bias[:, min(c_w, K - 1), w]``, so that a prior can
    say "once, not twice". ``processor(tokens, scores)`` returns ``scores``
    plus that bias (in the scores' dtype, its rows repeated for the beams).
    It is :meth:`BagOfWordCountsHead.logit_bias` in decoding; teacher forcing
    adds the same rows by :func:`prefix_word_counts`.

    Args:
        bias (Tensor): ``[B, K, V]``, per sample the bias of each word by
            its count ``0 .. K - 1`` (``K - 1`` or more).
    """

    def __init__(self, bias: torch.Tensor):
        if bias.dim() != 3:
            raise ValueError('a counted word prior is [B, K, V], got shape '
                             f'{tuple(bias.shape)}')
        self.bias = bias

    def __call__(self, tokens: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        words = tokens[:, 1:]  # [N, t-1], the start token is not a word
        counts = words.new_zeros(scores.shape)  # [N, V]
        counts.scatter_add_(1, words, torch.ones_like(words))
        bias = counted_bias(rows_per_sample(self.bias, scores), counts)  # [N, V]
        return scores + bias.to(scores.dtype)
