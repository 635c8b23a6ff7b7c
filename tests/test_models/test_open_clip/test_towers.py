"""The open_clip guard: the tested release range, batch-first blocks."""
import pytest
from torch import nn

from mmidc.models.open_clip.towers import (build_clip_text_tower,
                                          build_clip_vision_tower,
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
