import pytest
import torch
from torch.testing import assert_close

from mmidc.models.clip4idc import CLIP4IDCBackbone
from mmidc.models.plugins.aligned_difference import (AlignedDifference,
                                                      _best_match_difference)


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


@pytest.mark.parametrize('conv_stem', [None, (8, 16)])
def test_backbone_adds_it_to_the_difference_segment(tiny_arch, conv_stem):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                                difference_tokens=True, conv_stem=conv_stem,
                                aligned_difference=True).eval()
    channels = 16 if conv_stem else 64  # the last stem stage or the width
    assert backbone.aligned_difference.proj.in_features == 2 * channels
    img1, img2 = torch.randn(2, 2, 3, 32, 32)
    captured = {}
    handle = backbone.transformer.resblocks[-1].register_forward_pre_hook(
        lambda module, args: captured.setdefault('x', args[0]))
    tokens = backbone(img1, img2)
    handle.remove()
    assert tokens.shape == (2, 3 * 17, 64)
    # without the option, the same weights give another difference segment
    # and the same image segments
    backbone.aligned_difference = None
    captured_plain = {}
    handle = backbone.transformer.resblocks[-1].register_forward_pre_hook(
        lambda module, args: captured_plain.setdefault('x', args[0]))
    backbone(img1, img2)
    handle.remove()
    assert_close(captured['x'][:, :34], captured_plain['x'][:, :34])
    assert not torch.allclose(captured['x'][:, 35:], captured_plain['x'][:, 35:])
    with pytest.raises(ValueError, match='difference_tokens=True'):
        CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                         aligned_difference=True)


def test_clip_weights_load_without_its_parameters(tiny_arch, tiny_clip):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                                difference_tokens=True,
                                aligned_difference=True,
                                pretrained=tiny_clip.state_dict())
    assert_close(backbone.conv1.weight, tiny_clip.visual.conv1.weight)


def test_alignment_stage_picks_a_stem_stage(tiny_arch):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                                difference_tokens=True, conv_stem=(8, 16),
                                aligned_difference=True, alignment_stage=0)
    assert backbone.aligned_difference.proj.in_features == 2 * 8
    assert backbone(*torch.randn(2, 2, 3, 32, 32)).shape == (2, 51, 64)
    # the stages' outputs are the plain layer stack's
    backbone.conv1.eval()
    x = torch.randn(2, 3, 32, 32)
    out, stages = backbone.conv1(x, return_features=True)
    assert [s.shape for s in stages] == [(2, 8, 16, 16), (2, 16, 8, 8)]
    assert_close(stages[0], torch.nn.Sequential(*list(backbone.conv1)[:3])(x))
    assert_close(out, torch.nn.Sequential.forward(backbone.conv1, x))
    with pytest.raises(ValueError, match='alignment_stage=2'):
        CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                         difference_tokens=True, conv_stem=(8, 16),
                         aligned_difference=True, alignment_stage=2)
