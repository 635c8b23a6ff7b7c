"""The open_clip guard: the tested release range, batch-first blocks."""
import pytest
from torch import nn

from mmidc.models.utils import (build_clip_text_tower, build_clip_vision_tower,
                                check_batch_first_blocks,
                                check_open_clip_version)


@pytest.mark.parametrize('version', ['2.26.1', '2.32.0', '3.3.0', '3.0.0+cpu'])
def test_supported_open_clip_releases(version):
    check_open_clip_version(version)


@pytest.mark.parametrize('version, why', [
    ('2.24.0', 'sequence-first'), ('2.26.0', 'sequence-first'),
    ('3.4.0', 'newer than'), ('4.0.0', 'newer than')])
def test_unsupported_open_clip_releases_fail_clearly(version, why):
    with pytest.raises(ImportError, match=f'open_clip_torch {version} .*{why}'
                       '.*pip install "open_clip_torch>=2.26.1,<3.4"'):
        check_open_clip_version(version)


def test_towers_must_attend_batch_first(tiny_arch):
    vision = build_clip_vision_tower(tiny_arch)
    text = build_clip_text_tower(tiny_arch)  # both pass the check
    width = tiny_arch['vision_cfg']['width']
    vision.transformer.resblocks[2].attn = nn.MultiheadAttention(width, 2)
    with pytest.raises(RuntimeError, match=r'vision: open_clip block 2 .*'
                       r'batch_first=False'):
        check_batch_first_blocks(vision, 'vision')
    text.transformer.resblocks[0].attn = nn.Identity()
    with pytest.raises(RuntimeError, match='block 0 attends with Identity'):
        check_batch_first_blocks(text, 'text')


def test_pos_embed_resize_matches_a_hand_computation():
    """interpolate_pos_embed (MMPretrain's resize_pos_embed underneath) keeps
    the CLS row and resizes the grid like the explicit bicubic below."""
    import torch
    import torch.nn.functional as F

    from mmidc.models.utils import interpolate_pos_embed
    def by_hand(pos):
        grid = pos[1:].float().reshape(1, 4, 6, 8).permute(0, 3, 1, 2)  # [1, D, h, w]
        grid = F.interpolate(grid, size=(7, 5), mode='bicubic',
                             align_corners=False)  # [1, D, 7, 5]
        return grid.permute(0, 2, 3, 1).reshape(35, 8)  # [h'*w', D]

    pos = torch.randn(1 + 4 * 6, 8)
    resized = interpolate_pos_embed(pos, (4, 6), (7, 5))
    assert torch.equal(resized[0], pos[0])
    assert torch.equal(resized[1:], by_hand(pos))
    assert interpolate_pos_embed(pos, (4, 6), (4, 6)) is pos
    half = interpolate_pos_embed(pos.half(), (4, 6), (7, 5))  # fp32 inside
    assert half.dtype == torch.float16
    assert torch.equal(half[1:], by_hand(pos.half()).half())
