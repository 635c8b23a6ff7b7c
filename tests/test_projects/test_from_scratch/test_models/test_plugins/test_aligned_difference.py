import pytest
import torch
from torch.testing import assert_close

from projects.from_scratch.models.plugins.aligned_difference import (
    AlignedDifference, _best_match_difference)


def _shifted_scene(dx=1):
    """A random map, the same map shifted ``dx`` cells right, and the
    shifted one with one cell changed."""
    before = torch.randn(2, 8, 6, 9)
    after = torch.roll(before, shifts=dx, dims=3)
    changed = after.clone()
    changed[:, :, 3, 4] += 5.0
    return before, after, changed


def test_a_shift_within_the_radius_leaves_no_difference():
    before, after, changed = _shifted_scene(dx=1)
    interior = (slice(None), slice(None), slice(1, -1), slice(2, -2))
    plain = (after - before)[interior]
    aligned = _best_match_difference(after, before, radius=1)[interior]
    assert plain.abs().mean() > 0.5  # the plain difference sees the shift
    assert_close(aligned, torch.zeros_like(aligned))
    # a shift beyond the radius is not matched
    far = _best_match_difference(torch.roll(before, 2, dims=3), before, 1)
    assert far[interior].abs().mean() > 0.5
    # the changed cell stands out: nothing within the radius matches it
    aligned = _best_match_difference(changed, before, radius=1)
    magnitude = aligned.abs().sum(1)  # [B, h, w]
    assert (magnitude[:, 3, 4] > 4 * 8 * 0.5).all()
    assert magnitude[:, 1:-1, 2:-2].flatten(1).argmax(1).eq(2 * 5 + 2).all()


def test_radius_zero_is_the_plain_difference():
    before, _, changed = _shifted_scene()
    assert_close(_best_match_difference(changed, before, radius=0),
                 changed - before)


def test_both_directions_pooled_to_the_grid_and_gradients_flow():
    before, _, changed = _shifted_scene()
    before.requires_grad_(True)
    module = AlignedDifference(in_channels=8, out_channels=16)
    tokens = module(before, changed, grid=(3, 3))
    assert tokens.shape == (2, 9, 16)
    tokens.sum().backward()
    assert before.grad.abs().sum() > 0
    assert module.proj.weight.grad.abs().sum() > 0
    with pytest.raises(ValueError, match='radius'):
        AlignedDifference(8, 16, radius=-1)
