"""WidthScaledNormalInit: both embeddings ~ N(0, width^-0.5)."""
import torch

from mmidc.models.clip4idc import CLIP4IDCBackbone, WidthScaledNormalInit


def test_draws_both_embeddings_at_the_width_scale(tiny_arch):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2)  # width 64
    torch.manual_seed(0)
    WidthScaledNormalInit()(backbone)
    std = 64**-0.5  # 0.125
    pos = backbone.joint_positional_embedding  # [2(n+1), 64]
    assert 0.9 * std < pos.std().item() < 1.1 * std
    assert abs(pos.mean().item()) < 0.01
    tiled = backbone.positional_embedding.repeat(2, 1)
    assert (pos - tiled).abs().max() > 0.1  # not CLIP's positions
    ids = backbone.image_id_embedding  # 128 draws
    assert 0.7 * std < ids.std().item() < 1.35 * std
