"""split_segments: [B, S*T, D] into S named [B, T, D] views, in order."""
import pytest
import torch

from mmidc.models.clip4idc.segments import split_segments


def test_splits_into_equal_named_segments():
    tokens = torch.arange(2 * 6 * 4.).view(2, 6, 4)
    parts = split_segments(tokens, ('before', 'after', 'diff'))
    assert list(parts) == ['before', 'after', 'diff']
    assert all(p.shape == (2, 2, 4) for p in parts.values())
    assert torch.equal(parts['after'], tokens[:, 2:4])
    assert torch.equal(parts['diff'][1], tokens[1, 4:])
    with pytest.raises(ValueError, match=r"6 tokens do not split into the 4 segments"):
        split_segments(tokens, ('a', 'b', 'c', 'd'))
