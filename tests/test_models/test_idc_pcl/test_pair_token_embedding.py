"""PairTokenEmbedding: grid features -> IDC-PCL's visual tokens."""
import pytest
import torch

from mmidc.models.idc_pcl import PairTokenEmbedding


def tiny(**kwargs):
    torch.manual_seed(0)
    return PairTokenEmbedding(feature_dim=6, hidden=4, max_tokens=3, **kwargs).eval()


def test_tokens_by_hand():
    emb = tiny()
    feats = torch.randn(2, 2, 3, 6)
    out = emb(feats)  # [B, 2, N+1, H]
    assert out.shape == (2, 2, 4, 4)
    b, k, i = 1, 1, 2
    v = emb.proj(feats[b, k, i]) + emb.position[i + 1] + emb.image_embed[k]
    torch.testing.assert_close(out[b, k, i + 1], emb.ln(v))
    token = emb.image_token[k] + emb.position[0] + emb.image_embed[k]
    torch.testing.assert_close(out[b, k, 0], emb.ln(token))
    # fewer positions than max_tokens use the first positions
    assert emb(feats[:, :, :2]).shape == (2, 2, 3, 4)
    with pytest.raises(ValueError, match='max_tokens=3'):
        emb(torch.randn(1, 2, 4, 6))


def test_the_two_images_get_distinct_embeddings():
    """The same features as image 1 and image 2 give different tokens."""
    emb = tiny()
    assert not torch.allclose(emb.image_embed[0], emb.image_embed[1])
    f = torch.randn(1, 1, 3, 6)
    out = emb(f.expand(-1, 2, -1, -1))  # [1, 2, N+1, H]
    assert not torch.allclose(out[:, 0], out[:, 1])
    with torch.no_grad():  # without the image embedding: only [IMGk] differs
        emb.image_embed.zero_()
    out = emb(f.expand(-1, 2, -1, -1))
    torch.testing.assert_close(out[:, 0, 1:], out[:, 1, 1:])
    assert not torch.allclose(out[:, 0, 0], out[:, 1, 0])
