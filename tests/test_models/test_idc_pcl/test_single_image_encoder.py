"""SingleImageEncoder (F_sing): each image's tokens encoded alone."""
import torch

from tests.helpers.tiny_idc_pcl import tiny_image_token_encoder


def test_each_image_alone_with_shared_layers():
    enc = tiny_image_token_encoder('SingleImageEncoder')
    tokens = torch.randn(2, 2, 4, 8)  # [B, 2, N+1, H]
    out = enc(tokens)
    assert out.shape == (2, 2, 4, 8)
    # image k of pair b is the transformer's output for those tokens alone
    torch.testing.assert_close(out[1, 0], enc.transformer(tokens[1, 0:1])[0])
    torch.testing.assert_close(out[1, 1], enc.transformer(tokens[1, 1:2])[0])
    # changing image 2 leaves image 1's output unchanged
    changed = tokens.clone()
    changed[:, 1] = torch.randn(2, 4, 8)
    out2 = enc(changed)
    torch.testing.assert_close(out2[:, 0], out[:, 0])
    assert not torch.allclose(out2[:, 1], out[:, 1])
