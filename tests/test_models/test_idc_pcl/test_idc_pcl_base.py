"""IDCPCLBase: the trunk both IDC-PCL stages share."""
import pytest
import torch

from mmidc.models.idc_pcl.idc_pcl_base import IDCPCLBase
from tests.helpers.tiny_idc_pcl import IMAGE_SIZE, tiny_model_cfg


class Trunk(IDCPCLBase):
    """The trunk alone: images -> visual tokens."""

    def forward(self, inputs, data_samples=None, mode='tensor'):
        return self.visual_tokens(self.extract_feat(inputs))


def build(**overrides):
    cfg = tiny_model_cfg(**overrides)
    del cfg['type']
    torch.manual_seed(0)
    return Trunk(**cfg).eval()


def test_builds_from_a_tiny_config_and_gives_visual_tokens():
    model = build()
    assert model.token_embedding.proj.in_features == model.feature_encoder.feature_dim == 32
    assert model.token_embedding.max_tokens == 6 and model.num_image_tokens == 7
    assert {model.single_image_encoder.transformer.ln_out.normalized_shape[0],
            model.pair_encoder.transformer.ln_out.normalized_shape[0]} == {32}
    images = torch.randn(2, 2, 3, *IMAGE_SIZE)
    features = model.extract_feat(images)
    assert features.shape == (2, 2, 6, 32)
    tokens = model(images)
    assert tokens.shape == (2, 2 * 7, 32)
    # the same features as both images: the images are still told apart
    same = model.visual_tokens(features[:, :1].expand(-1, 2, -1, -1))
    assert not torch.allclose(same[:, :7], same[:, 7:])
    first, second = model.image_token_outputs(tokens)
    assert torch.equal(first, tokens[:, 0]) and torch.equal(second, tokens[:, 7])


def test_feature_mask_zeroes_the_masked_features():
    model = build()
    features = torch.randn(1, 2, 6, 32)
    mask = torch.zeros(1, 2, 6, dtype=torch.bool)
    mask[0, 1, 2] = True
    zeroed = features.clone()
    zeroed[0, 1, 2] = 0
    torch.testing.assert_close(model.visual_tokens(features, mask),
                               model.visual_tokens(zeroed))
    assert not torch.allclose(model.visual_tokens(features, mask),
                              model.visual_tokens(features))


def test_without_the_difference_encoder_tokens_go_straight_on():
    model = build(single_image_encoder=None, pair_encoder=None)
    assert model.single_image_encoder is None and model.pair_encoder is None
    features = torch.randn(1, 2, 6, 32)
    torch.testing.assert_close(model.visual_tokens(features),
                               model.token_embedding(features).flatten(1, 2))


def test_a_sub_config_of_another_width_is_refused():
    with pytest.raises(ValueError, match='PairEncoder: hidden=16 differs'):
        build(pair_encoder=dict(type='PairEncoder', hidden=16, num_heads=2))
