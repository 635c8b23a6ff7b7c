"""stack_text_tokens: one caption per sample, stacked to [B, L]."""
import pytest
import torch
from mmpretrain.structures import DataSample

from mmidc.models.data_preprocessors import stack_text_tokens


def _sample(tokens=None):
    sample = DataSample()
    if tokens is not None:
        sample.set_field(tokens, 'text_tokens')
    return sample


def test_stacks_one_caption_per_sample():
    samples = [_sample(torch.arange(5) + i) for i in range(3)]
    tokens = stack_text_tokens(samples, 'cpu')
    assert tokens.shape == (3, 5)
    assert torch.equal(tokens[2], torch.arange(5) + 2)


def test_missing_or_several_captions_are_errors():
    with pytest.raises(KeyError, match='TokenizeCaptions'):
        stack_text_tokens([_sample(torch.zeros(5)), _sample()], 'cpu')
    with pytest.raises(KeyError, match='text_tokens'):
        stack_text_tokens([], 'cpu')
    with pytest.raises(ValueError, match='one caption per sample'):
        stack_text_tokens([_sample(torch.zeros(2, 5))], 'cpu')
