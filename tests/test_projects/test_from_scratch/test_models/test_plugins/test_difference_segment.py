import pytest
import torch
from torch.testing import assert_close

from mmidc.models.clip4idc import CLIP4IDCBackbone
from projects.from_scratch.models.plugins import DifferenceSegment


def _backbone(tiny_arch, stem=None, **segment):
    patch_embed = None if stem is None else dict(type='ConvStem',
                                                 channels=stem)
    return CLIP4IDCBackbone(
        tiny_arch, num_inter_layers=1, patch_embed=patch_embed,
        extra_segments=[dict(type='DifferenceSegment', **segment)]).eval()


def _inter_input(backbone, img1, img2):
    """The inter block's input ``[B, S(n+1), D]`` for a pair."""
    captured = {}
    handle = backbone.transformer.resblocks[-1].register_forward_pre_hook(
        lambda module, args: captured.setdefault('x', args[0]))
    backbone(img1, img2)
    handle.remove()
    return captured['x']


def test_the_segment_is_after_minus_before_of_the_intra_outputs():
    segment = DifferenceSegment(width=8, stem_channels=(8, ))
    assert segment.name == 'diff' and not segment.needs_stem_features
    intra = torch.randn(2, 3, 5, 8)  # [2, B, n+1, D]
    assert_close(segment(intra, None, (2, 2)), intra[1] - intra[0])


@pytest.mark.parametrize('stem', [None, (8, 16)])
def test_aligned_difference_is_added_to_the_patch_tokens(tiny_arch, stem):
    backbone = _backbone(tiny_arch, stem, aligned=True)
    channels = 16 if stem else 64  # the last stem stage or the width
    aligned = backbone.extra_segments[0].aligned
    assert aligned.proj.in_features == 2 * channels
    img1, img2 = torch.randn(2, 2, 3, 32, 32)
    with_it = _inter_input(backbone, img1, img2)
    # without it, the same weights give another difference segment's patch
    # tokens and the same image segments and difference CLS
    backbone.extra_segments[0].aligned = None
    without = _inter_input(backbone, img1, img2)
    assert_close(with_it[:, :35], without[:, :35])
    assert not torch.allclose(with_it[:, 35:], without[:, 35:])


def test_clip_weights_load_without_its_parameters(tiny_arch, tiny_clip):
    backbone = CLIP4IDCBackbone(
        tiny_arch, num_inter_layers=1, pretrained=tiny_clip.state_dict(),
        extra_segments=[dict(type='DifferenceSegment', aligned=True)])
    assert_close(backbone.conv1.weight, tiny_clip.visual.conv1.weight)


def test_alignment_stage_picks_a_stem_stage(tiny_arch):
    backbone = _backbone(tiny_arch, (8, 16), aligned=True, alignment_stage=0)
    assert backbone.extra_segments[0].aligned.proj.in_features == 2 * 8
    assert backbone(*torch.randn(2, 2, 3, 32, 32)).shape == (2, 51, 64)
    with pytest.raises(ValueError, match='alignment_stage=2'):
        _backbone(tiny_arch, (8, 16), aligned=True, alignment_stage=2)
