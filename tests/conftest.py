import copy
import os

import pytest
import torch

# Two cores: keep intra-op threads predictable in tests.
torch.set_num_threads(min(2, os.cpu_count() or 1))

# A tiny open_clip config (same schema as open_clip's model_configs/*.json):
# 4 vision blocks, 32 px images with 8 px patches (n = 16), 2 text blocks.
TINY_ARCH = dict(
    embed_dim=64,
    vision_cfg=dict(image_size=32, layers=4, width=64, head_width=32,
                    patch_size=8),
    text_cfg=dict(context_length=32, vocab_size=49408, width=64, heads=2,
                  layers=2),
)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture
def tiny_arch():
    """A fresh copy of :data:`TINY_ARCH`."""
    return copy.deepcopy(TINY_ARCH)
