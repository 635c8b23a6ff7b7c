import torch
from torch.testing import assert_close

from mmidc.models.utils.caption_vocab import build_caption_vocab, clip_tokenizer
from mmidc.registry import MODELS

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'the cylinder moved']
B, T, D = 4, 10, 24  # pairs, memory tokens, memory width


def heads(gate_init=4.0):
    """A gated head and the base head with the same weights."""
    cfg = dict(memory_dim=D, hidden=32, num_heads=4, num_encoder_layers=1,
               num_decoder_layers=2, max_length=12, max_memory_tokens=T,
               dropout=0.0, vocab=build_caption_vocab(CAPTIONS))
    gated = MODELS.build(dict(type='GatedPriorCaptionHead', gate_init=gate_init,
                              **cfg)).eval()
    base = MODELS.build(dict(type='TransformerCaptionHead', **cfg)).eval()
    missing, unexpected = base.load_state_dict(gated.state_dict(), strict=False)
    assert not missing and set(unexpected) == {
        'gate_norm.weight', 'gate_norm.bias', 'prior_gate.weight',
        'prior_gate.bias'}
    return gated, base


def inputs(V):
    tokens = clip_tokenizer()(CAPTIONS, context_length=12)  # [B, 12]
    return torch.randn(B, T, D), tokens, torch.randn(B, V)


def test_gate_weighs_the_prior_per_position():
    gated, base = heads()
    torch.nn.init.normal_(gated.prior_gate.weight)  # a gate that varies with t
    memory, tokens, bias = inputs(len(gated.vocab))
    compact = gated.vocab.to_compact(tokens)[:, :-1]  # [B, L-1]
    cross_kv = gated.cross_kv(gated.encode(memory))
    # the decoder's own logits and output, computed independently
    x = gated.embed_tokens(compact)
    for i, layer in enumerate(gated.decoder):
        x = layer(x, cross_kv[i])
    gate = torch.sigmoid(gated.gate_norm(x) @ gated.prior_gate.weight.t()
                         + gated.prior_gate.bias)  # [B, L-1, 1]
    assert gate.std() > 0.01  # not the same at every position
    expected = base(memory, tokens) + gate * bias[:, None]
    assert_close(gated(memory, tokens, logit_bias=bias), expected)
    # without a prior the gated head is the base head
    assert_close(gated(memory, tokens), base(memory, tokens))


def test_starts_as_the_base_head_and_limits():
    memory, tokens, bias = inputs(len(heads()[0].vocab))
    for gate_init, weight in ((30.0, 1.0), (-30.0, 0.0)):
        gated, base = heads(gate_init=gate_init)
        assert_close(gated(memory, tokens, logit_bias=bias),
                     base(memory, tokens, logit_bias=weight * bias))
    gated, _ = heads()
    assert_close(gated.prior_gate.bias, torch.tensor([4.0]))
    assert gated.prior_gate.weight.abs().sum() == 0


def test_decoding_cached_and_uncached_agree_and_gate_trains():
    gated, _ = heads()
    torch.nn.init.normal_(gated.prior_gate.weight)
    memory, tokens, bias = inputs(len(gated.vocab))
    cached = gated.greedy_decode(memory, use_cache=True, logit_bias=bias)
    assert torch.equal(cached.tokens, gated.greedy_decode(
        memory, use_cache=False, logit_bias=bias).tokens)
    assert torch.equal(cached.tokens, gated.beam_search(
        memory, beam_size=1, logit_bias=bias).tokens)
    gated.train()
    gated.loss(memory, tokens, logit_bias=bias)['loss_caption'].backward()
    assert gated.prior_gate.weight.grad.abs().sum() > 0
    assert gated.prior_gate.bias.grad.abs().sum() > 0
