"""TiledPositionInit: image-id vectors ~ N(0, std), CLIP's positions tiled."""
import pytest
import torch
from torch.testing import assert_close

from mmidc.models.clip4idc import CLIP4IDCBackbone, TiledPositionInit


@pytest.mark.parametrize('std', [0.02, 0.5])
def test_tiles_the_positions_and_draws_the_image_ids(tiny_arch, std):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2)
    with torch.no_grad():
        backbone.positional_embedding.normal_()
        backbone.joint_positional_embedding.zero_()
    torch.manual_seed(0)
    TiledPositionInit(std)(backbone)
    pos = backbone.positional_embedding  # [n+1, D]
    assert_close(backbone.joint_positional_embedding, torch.cat([pos, pos]))
    ids = backbone.image_id_embedding  # [2, 64]: 128 draws
    assert 0.75 * std < ids.std().item() < 1.25 * std
    assert abs(ids.mean().item()) < 0.3 * std
