"""Tiny CLIP models for the model tests (``tiny_arch``: the root conftest)."""
import pytest


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
