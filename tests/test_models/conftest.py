"""Shared tiny CLIP configs for the model tests."""
import copy

import pytest

# A tiny open_clip config (same schema as open_clip's model_configs/*.json):
# 4 vision blocks, 32 px images with 8 px patches (n = 16), 2 text blocks.
TINY_ARCH = dict(
    embed_dim=64,
    vision_cfg=dict(image_size=32, layers=4, width=64, head_width=32,
                    patch_size=8),
    text_cfg=dict(context_length=32, vocab_size=49408, width=64, heads=2,
                  layers=2),
)


@pytest.fixture
def tiny_arch():
    """A fresh copy of :data:`TINY_ARCH`."""
    return copy.deepcopy(TINY_ARCH)


@pytest.fixture
def tiny_clip(tiny_arch):
    """An open_clip ``CLIP`` model of the tiny arch, eval mode."""
    import open_clip
    from open_clip.model import CLIP
    del open_clip
    return CLIP(**tiny_arch).eval()


@pytest.fixture
def tiny_clip_file(tiny_clip, tmp_path):
    """The tiny CLIP's state dict saved with ``torch.save`` (``.pt``)."""
    import torch
    path = tmp_path / 'tiny_clip.pt'
    torch.save(tiny_clip.state_dict(), path)
    return str(path)
