"""Transformer layers written out by hand (heads, scaled scores, masks,
softmax, erf GELU, LayerNorm from its formula): what the layers of
mmidc.models.layers.transformer_layers must compute."""
import math

import torch
from torch import nn


def randomise_norms(module):
    """LayerNorms with random affine parameters (weight 1, bias 0 would hide
    where a norm sits)."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.normal_(1.0, 0.3)
                m.bias.normal_(0.0, 0.3)


def ref_layer_norm(x, ln):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + ln.eps) * ln.weight + ln.bias


def ref_linear(x, linear):
    return x @ linear.weight.t() + linear.bias


def ref_attention(attn, x, memory, causal=False, mask=None):
    """Multi-head attention of queries ``x`` on ``memory``; ``mask`` bool
    ``[Tq, Tk]``, True where a query may attend."""
    heads = attn.num_heads
    q = ref_linear(x, attn.q_proj)
    k, v = ref_linear(memory, attn.kv_proj).chunk(2, dim=-1)
    d = q.shape[-1] // heads
    out = []
    for h in range(heads):
        qh, kh, vh = (t[..., h * d:(h + 1) * d] for t in (q, k, v))
        scores = qh @ kh.transpose(-1, -2) / math.sqrt(d)  # [B, Tq, Tk]
        if causal:
            future = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float('-inf'))
        if mask is not None:
            scores = scores.masked_fill(~mask, float('-inf'))
        out.append(scores.softmax(-1) @ vh)
    return ref_linear(torch.cat(out, dim=-1), attn.out_proj)


def ref_ffn(x, ffn):
    h = ref_linear(x, ffn[0])
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))  # GELU
    return ref_linear(h, ffn[-1])


def ref_encoder_layer(layer, x, mask=None):
    if layer.norm == 'pre':
        h = ref_layer_norm(x, layer.ln_attn)
        x = x + ref_attention(layer.attn, h, h, mask=mask)
        return x + ref_ffn(ref_layer_norm(x, layer.ln_ffn), layer.ffn)
    x = ref_layer_norm(x + ref_attention(layer.attn, x, x, mask=mask),
                       layer.ln_attn)
    return ref_layer_norm(x + ref_ffn(x, layer.ffn), layer.ln_ffn)


def ref_decoder_layer(layer, x, memory):
    if layer.norm == 'pre':
        h = ref_layer_norm(x, layer.ln_self)
        x = x + ref_attention(layer.self_attn, h, h, causal=True)
        h = ref_layer_norm(x, layer.ln_cross)
        x = x + ref_attention(layer.cross_attn, h, memory)
        return x + ref_ffn(ref_layer_norm(x, layer.ln_ffn), layer.ffn)
    x = ref_layer_norm(x + ref_attention(layer.self_attn, x, x, causal=True),
                       layer.ln_self)
    x = ref_layer_norm(x + ref_attention(layer.cross_attn, x, memory),
                       layer.ln_cross)
    return ref_layer_norm(x + ref_ffn(x, layer.ffn), layer.ln_ffn)
