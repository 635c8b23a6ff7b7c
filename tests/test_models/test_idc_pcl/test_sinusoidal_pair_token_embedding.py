"""SinusoidalPairTokenEmbedding: the published code's visual tokens."""
import math

import pytest
import torch

from mmidc.models.idc_pcl import (SinusoidalPairTokenEmbedding,
                                  published_sinusoid_table)
from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import tiny_batch, tiny_model_cfg


def test_table_uses_the_published_exponents():
    table = published_sinusoid_table(5, 4)
    assert table[3, 0].item() == pytest.approx(math.sin(3))
    assert table[3, 1].item() == pytest.approx(math.cos(3 / 10000 ** (2 / 4)))
    assert table[3, 2].item() == pytest.approx(math.sin(3 / 10000 ** (4 / 4)))
    assert table[3, 3].item() == pytest.approx(math.cos(3 / 10000 ** (6 / 4)))


def test_tokens_by_hand():
    torch.manual_seed(0)
    emb = SinusoidalPairTokenEmbedding(feature_dim=6, hidden=4, max_tokens=3).eval()
    feats = torch.randn(2, 2, 3, 6)
    out = emb(feats)  # [B, 2, N+1, H]
    assert out.shape == (2, 2, 4, 4)
    b, k, i = 1, 1, 2
    v = torch.sigmoid(emb.proj(feats[b, k, i])) + emb.sinusoid[i] + emb.image_embed[k]
    assert torch.allclose(out[b, k, i + 1], emb.ln(v), atol=1e-6)
    token = emb.image_token[k] + emb.image_token_type[k]
    assert torch.allclose(out[b, k, 0], emb.ln(token), atol=1e-6)
    assert 'position' not in dict(emb.named_parameters())
    with pytest.raises(ValueError, match='max_tokens'):
        emb(torch.randn(1, 2, 4, 6))


def test_in_a_model():
    model = MODELS.build(tiny_model_cfg(
        'IDCPCLPretrainer', token_embedding=dict(type='SinusoidalPairTokenEmbedding')))
    data = model.data_preprocessor(tiny_batch(), True)
    loss = model.loss(data['inputs'], data['data_samples'], task='mlm')['loss_mlm']
    assert torch.isfinite(loss)
