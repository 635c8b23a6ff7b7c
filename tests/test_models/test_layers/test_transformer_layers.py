"""The one set of Transformer layers: pre- and post-norm layers against a
hand-written forward, the key/value cache, the attention mask, the
registration order, and checkpoints of the fused-qkv layout."""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from mmidc.models.layers.transformer_layers import (DecoderLayer, EncoderLayer,
                                                    FeedForward,
                                                    MultiheadAttention,
                                                    bert_init_,
                                                    upgrade_fused_qkv)
from tests.helpers.reference_layers import (randomise_norms,
                                            ref_decoder_layer,
                                            ref_encoder_layer)


@pytest.mark.parametrize('norm, eps', [('pre', 1e-5), ('post', 1e-12)])
def test_layers_match_a_hand_written_forward(norm, eps):
    enc = EncoderLayer(8, 2, 16, norm=norm, eps=eps)
    dec = DecoderLayer(8, 2, 16, norm=norm, eps=eps, ffn_dropout=False)
    randomise_norms(enc)
    randomise_norms(dec)
    x, memory = torch.randn(3, 5, 8), torch.randn(3, 7, 8)
    assert enc.ln_attn.eps == dec.ln_ffn.eps == eps
    assert_close(enc(x), ref_encoder_layer(enc, x))
    out = dec(x, dec.cross_attn.key_value(memory))
    assert_close(out, ref_decoder_layer(dec, x, memory))
    if norm == 'post':  # each sub-layer ends in its norm
        plain = DecoderLayer(8, 2, 16, norm='post')
        y = plain(x, plain.cross_attn.key_value(memory))
        assert_close(y.mean(-1), torch.zeros(3, 5), atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match='norm'):
        EncoderLayer(8, 2, 16, norm='sandwich')


def test_attention_mask():
    layer = EncoderLayer(8, 2, 16)
    randomise_norms(layer)
    x = torch.randn(2, 6, 8)
    mask = torch.rand(6, 6) > 0.4
    mask |= torch.eye(6, dtype=torch.bool)  # every query sees something
    assert_close(layer(x, mask[None, None]),
                 ref_encoder_layer(layer, x, mask))


@pytest.mark.parametrize('norm', ['pre', 'post'])
def test_cached_steps_equal_the_whole_sequence(norm):
    """One token at a time with a cache = the causal whole sequence."""
    torch.manual_seed(0)
    dec = DecoderLayer(8, 2, 16, norm=norm).eval()
    enc = EncoderLayer(8, 2, 16, norm=norm).eval()
    x, memory = torch.randn(2, 5, 8), torch.randn(2, 4, 8)
    cross_kv = dec.cross_attn.key_value(memory)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()[None, None]
    full_dec, full_enc = dec(x, cross_kv), enc(x, causal)
    dec_cache, enc_cache = {}, {}
    for t in range(5):
        step = x[:, t:t + 1]
        assert_close(dec(step, cross_kv, dec_cache), full_dec[:, t:t + 1])
        assert_close(enc(step, None, enc_cache), full_enc[:, t:t + 1])
        assert dec_cache['k'].shape == (2, 2, t + 1, 4)  # [B, h, T, C/h]


def test_parameters_registered_in_the_order_they_run():
    assert [n for n, _ in EncoderLayer(8, 2, 16).named_children()] == [
        'ln_attn', 'attn', 'ln_ffn', 'ffn', 'drop']
    assert [n for n, _ in DecoderLayer(8, 2, 16, norm='post').named_children()] \
        == ['self_attn', 'ln_self', 'cross_attn', 'ln_cross', 'ffn', 'ln_ffn',
            'drop']
    assert len(FeedForward(8, 16, 0.1)) == 4 and len(FeedForward(8, 16)) == 3
    with pytest.raises(ValueError, match='divisible'):
        MultiheadAttention(10, 4)


def fused_layout(layer: EncoderLayer) -> dict:
    """The layer's state dict in the fused layout: ``qkv`` and ``out_proj``
    directly in the layer."""
    state = {}
    for key, value in layer.state_dict().items():
        if key.startswith('attn.q_proj.'):
            kind = key.rsplit('.', 1)[1]
            kv = layer.state_dict()[f'attn.kv_proj.{kind}']
            state[f'qkv.{kind}'] = torch.cat([value, kv])  # [3C, ...]
        elif key.startswith('attn.out_proj.'):
            state[key[len('attn.'):]] = value
        elif not key.startswith('attn.kv_proj.'):
            state[key] = value
    return state


def test_a_fused_qkv_checkpoint_loads():
    torch.manual_seed(0)
    old = nn.Sequential(EncoderLayer(8, 2, 16), EncoderLayer(8, 2, 16))
    state = {f'{i}.{k}': v for i, layer in enumerate(old)
             for k, v in fused_layout(layer).items()}
    assert '0.qkv.weight' in state and '1.out_proj.bias' in state
    new = nn.Sequential(EncoderLayer(8, 2, 16), EncoderLayer(8, 2, 16))
    new.load_state_dict(state)  # strict: every key found a home
    for a, b in zip(old.state_dict().values(), new.state_dict().values()):
        assert torch.equal(a, b)
    x = torch.randn(2, 3, 8)
    assert torch.equal(new(x), old(x))
    assert upgrade_fused_qkv(state).keys() == old.state_dict().keys()
    untouched = {'backbone.attn.out_proj.weight': torch.ones(1)}
    assert upgrade_fused_qkv(untouched) == untouched


def test_bert_init():
    torch.manual_seed(0)
    layer = EncoderLayer(64, 2, 256)
    randomise_norms(layer)
    bert_init_(layer)
    weight = layer.ffn[0].weight
    assert 0.019 < weight.std().item() < 0.021
    assert not layer.attn.q_proj.bias.any() and not layer.ln_attn.bias.any()
    assert not torch.equal(layer.ln_attn.weight, torch.ones(64))  # kept
