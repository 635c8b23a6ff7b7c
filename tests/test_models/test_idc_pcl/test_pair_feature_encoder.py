import pytest
import torch

from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import IMAGE_SIZE, TINY_RESNET


def test_runs_a_resnet_on_both_images():
    enc = MODELS.build(dict(type='PairFeatureEncoder', backbone=TINY_RESNET,
                            image_size=IMAGE_SIZE))
    assert (enc.num_tokens, enc.feature_dim) == (2 * 3, 32)
    x = torch.randn(2, 2, 3, *IMAGE_SIZE)
    out = enc.eval()(x)  # [B, 2, N, C]
    assert out.shape == (2, 2, 6, 32)
    # image k of pair b is the backbone's output for that image alone
    alone = enc.backbone(x[1, 1:2])[-1].flatten(2).transpose(1, 2)  # [1, 6, 32]
    torch.testing.assert_close(out[1, 1], alone[0])


def test_runs_an_mmpretrain_vit_token_output():
    vit = dict(type='mmpretrain.VisionTransformer',
               arch=dict(embed_dims=16, num_layers=1, num_heads=2,
                         feedforward_channels=32),
               img_size=IMAGE_SIZE, patch_size=16, out_type='featmap')
    enc = MODELS.build(dict(type='PairFeatureEncoder', backbone=vit,
                            image_size=IMAGE_SIZE))
    assert (enc.num_tokens, enc.feature_dim) == (6, 16)
    assert enc(torch.randn(1, 2, 3, *IMAGE_SIZE)).shape == (1, 2, 6, 16)


def test_frozen_backbone_and_cached_features_agree():
    frozen = MODELS.build(dict(type='PairFeatureEncoder', backbone=TINY_RESNET,
                               image_size=IMAGE_SIZE, frozen=True))
    frozen.train()
    assert not frozen.backbone.training
    assert not any(p.requires_grad for p in frozen.parameters())
    x = torch.randn(2, 2, 3, *IMAGE_SIZE)
    features = frozen(x)  # [B, 2, N, C]
    # what LoadPairFeatures + PackIDCInputs give: [B, 2, C, h, w]
    maps = features.transpose(2, 3).reshape(2, 2, 32, 2, 3)
    cached = MODELS.build(dict(type='PairFeatureEncoder', backbone=None,
                               feature_dim=32, num_tokens=6))
    torch.testing.assert_close(cached(maps), features)
    with pytest.raises(ValueError, match='channels'):
        cached(torch.randn(2, 2, 8, 2, 3))
    with pytest.raises(ValueError, match='feature_dim'):
        MODELS.build(dict(type='PairFeatureEncoder', backbone=None))

