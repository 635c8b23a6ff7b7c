"""Tiny CLIP models for the model tests."""
import copy

import pytest

from tests.helpers.tiny_models import TINY_ARCH


@pytest.fixture
def tiny_arch():
    """A fresh copy of :data:`tests.helpers.tiny_models.TINY_ARCH`."""
    return copy.deepcopy(TINY_ARCH)


@pytest.fixture
def tiny_clip(tiny_arch):
    """An open_clip ``CLIP`` model of the tiny arch, eval mode."""
    from open_clip.model import CLIP
    return CLIP(**tiny_arch).eval()


@pytest.fixture
def tiny_clip_file(tiny_clip, tmp_path):
    """The tiny CLIP's state dict saved with ``torch.save`` (``.pt``)."""
    import torch
    path = tmp_path / 'tiny_clip.pt'
    torch.save(tiny_clip.state_dict(), path)
    return str(path)
