"""PairEncoder (F_pair): the two images' tokens attend to each other."""
import torch

from tests.helpers.tiny_idc_pcl import tiny_image_token_encoder


def test_one_joint_sequence_over_both_images():
    enc = tiny_image_token_encoder('PairEncoder')
    tokens = torch.randn(2, 2, 4, 8)  # [B, 2, N+1, H]
    out = enc(tokens)
    assert out.shape == (2, 2, 4, 8)
    # pair b is the transformer's output for [IMG1, v1, IMG2, v2]
    joint = enc.transformer(tokens[1:2].reshape(1, 8, 8))  # [1, 2(N+1), H]
    torch.testing.assert_close(out[1], joint.view(2, 4, 8))
    # image 1's outputs read image 2
    changed = tokens.clone()
    changed[:, 1] = torch.randn(2, 4, 8)
    assert not torch.allclose(enc(changed)[:, 0], out[:, 0])


def test_swapping_the_images_swaps_the_outputs():
    """The encoder adds no position of its own: what tells the images apart
    is in the tokens (PairTokenEmbedding's image embeddings)."""
    enc = tiny_image_token_encoder('PairEncoder')
    tokens = torch.randn(1, 2, 4, 8)
    out = enc(tokens)
    torch.testing.assert_close(enc(tokens.flip(1)), out.flip(1))
