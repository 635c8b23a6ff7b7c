"""DifferenceFeatureEncoder: pair features with their difference appended."""
import pytest
import torch

from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import IMAGE_SIZE, TINY_RESNET


def test_difference_encoder_appends_the_pair_difference():
    enc = MODELS.build(dict(type='DifferenceFeatureEncoder', backbone=TINY_RESNET,
                            image_size=IMAGE_SIZE)).eval()
    plain = MODELS.build(dict(type='PairFeatureEncoder', backbone=TINY_RESNET,
                              image_size=IMAGE_SIZE)).eval()
    plain.load_state_dict(enc.state_dict())
    assert enc.feature_dim == 2 * 32
    x = torch.randn(2, 2, 3, *IMAGE_SIZE)
    out, base = enc(x), plain(x)  # [B, 2, N, 2C], [B, 2, N, C]
    torch.testing.assert_close(out[..., :32], base)
    diff = base[:, 1] - base[:, 0]
    torch.testing.assert_close(out[:, 0, :, 32:], diff)
    torch.testing.assert_close(out[:, 1, :, 32:], diff)
    with pytest.raises(ValueError, match='needs a backbone'):
        MODELS.build(dict(type='DifferenceFeatureEncoder', backbone=None,
                          feature_dim=8, num_tokens=6))


def test_an_unchanged_pair_has_a_zero_difference():
    enc = MODELS.build(dict(type='DifferenceFeatureEncoder', backbone=TINY_RESNET,
                            image_size=IMAGE_SIZE)).eval()
    image = torch.randn(1, 1, 3, *IMAGE_SIZE)
    same = enc(image.expand(-1, 2, -1, -1, -1))  # [1, 2, N, 2C]
    assert same[..., :32].abs().sum() > 0
    assert torch.equal(same[..., 32:], torch.zeros_like(same[..., 32:]))
    changed = enc(torch.cat([image, image + 1], dim=1))
    assert changed[..., 32:].abs().sum() > 0
