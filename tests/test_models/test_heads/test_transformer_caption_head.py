"""TransformerCaptionHead: post-LN layers, CLIP's tied word embeddings, the loss
component, and the shared decoding."""
import math

import pytest
import torch
from mmengine.optim import build_optim_wrapper
from mmengine.registry import init_default_scope
from torch import nn
from torch.testing import assert_close

from mmidc.text import EOT_ID, build_caption_vocab, clip_tokenizer
from mmidc.registry import MODELS
from tests.helpers.reference_layers import (randomise_norms, ref_decoder_layer,
                                            ref_encoder_layer, ref_layer_norm,
                                            ref_linear)

# change and no-change captions alternate, as PairedSceneSampler orders them
CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'nothing has changed']
B, T, H = 4, 10, 32  # pairs, memory tokens, width


def tiny_head(**kwargs):
    cfg = dict(type='TransformerCaptionHead', hidden=H, num_heads=4,
               num_encoder_layers=2, num_decoder_layers=2, max_length=12,
               dropout=0.0)
    cfg.update(kwargs)
    cfg.setdefault('memory_dim', cfg['hidden'])
    return MODELS.build(cfg)


def tokens_of(captions, length=12):
    return clip_tokenizer()(captions, context_length=length)  # [N, length]


def test_forward_matches_a_hand_written_head():
    """Post-LN layers (eps 1e-12, no dropout inside the feed-forward), word
    input LN(E[token] + P[position]), decoder layer i reading encoder layer
    i, BERT's prediction transform, logits tied to E plus a bias."""
    head = tiny_head(vocab=build_caption_vocab(CAPTIONS)).eval()
    randomise_norms(head)
    for layer in (*head.encoder, *head.decoder):
        assert layer.norm == 'post' and layer.ln_ffn.eps == 1e-12
        assert len(layer.ffn) == 3  # Linear, GELU, Linear
    with torch.no_grad():
        head.output_bias.normal_()
    memory, tokens = torch.randn(B, T, H), tokens_of(CAPTIONS)
    compact = head.vocab.to_compact(tokens)[:, :-1]  # [B, L-1]

    encoded, x = [], memory  # no positional / segment embedding, no proj
    for layer in head.encoder:
        x = ref_encoder_layer(layer, x)
        encoded.append(x)
    E = head.word_embed.weight
    y = ref_layer_norm(E[compact] + head.word_pos[:compact.shape[1]], head.ln_embed)
    for layer, mem in zip(head.decoder, encoded):
        y = ref_decoder_layer(layer, y, mem)
    dense, _, norm = head.transform
    h = ref_linear(y, dense)
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
    hidden = ref_layer_norm(h, norm)
    expected = hidden @ E.t() + head.output_bias  # tied output matrix
    assert_close(head(memory, tokens), expected, rtol=1e-4, atol=1e-5)
    for extra in ('memory_proj', 'memory_pos', 'segment_embed', 'extra_embed'):
        assert not hasattr(head, extra), extra  # the paper's head, no more
    with pytest.raises(ValueError, match='memory_dim'):
        tiny_head(memory_dim=H + 8)


def test_every_trainable_parameter_gets_a_gradient():
    """No unused parameters (DDP needs none), the embeddings frozen."""
    head = tiny_head()
    loss = head.loss(torch.randn(B, T, H), tokens_of(CAPTIONS))['loss_caption']
    loss.backward()
    for name, p in head.named_parameters():
        assert (p.grad is not None) == p.requires_grad, name
    assert {n for n, p in head.named_parameters() if not p.requires_grad} == {
        'word_embed.weight', 'word_pos'}
    # normalisation layers are nn.LayerNorm (the optimizer finds them by type)
    norms = [m for m in head.modules() if 'Norm' in type(m).__name__]
    assert norms and all(isinstance(m, nn.LayerNorm) for m in norms)
    assert len(norms) == 2 * 2 + 3 * 2 + 2  # encoder, decoder, embed, transform


def test_loads_clip_embeddings_from_a_clip_checkpoint(tiny_clip, tiny_clip_file):
    clip_rows = tiny_clip.token_embedding.weight
    head = tiny_head(memory_dim=64, hidden=64, pretrained=tiny_clip_file)
    assert head.word_embed.num_embeddings == 49408
    assert torch.equal(head.word_embed.weight, clip_rows)
    assert torch.equal(head.word_pos, tiny_clip.positional_embedding[:12])
    # a restricted vocabulary takes CLIP's rows of its tokens, unk a zero row
    vocab = build_caption_vocab(CAPTIONS)
    small = tiny_head(memory_dim=64, hidden=64, vocab=vocab,
                      pretrained=tiny_clip.state_dict())
    ids = vocab.clip_ids
    assert torch.equal(small.word_embed.weight[ids >= 0], clip_rows[ids[ids >= 0]])
    assert not small.word_embed.weight[vocab.unk_id].any()
    # so its logits are the full head's at those tokens
    state = head.state_dict()
    state['word_embed.weight'] = small.word_embed.weight
    state['output_bias'] = state['output_bias'][ids.clamp(min=0)]
    state['vocab.clip_ids'] = ids
    small.load_state_dict(state)
    memory, tokens = torch.randn(B, T, 64), tokens_of(CAPTIONS)
    known = ids >= 0
    assert_close(small.eval()(memory, tokens)[..., known],
                 head.eval()(memory, tokens)[..., ids[known]])


def test_loads_from_an_adaptation_checkpoint_pattern(tiny_clip, tmp_path):
    """The published code takes them from the adaptation-stage model: a
    CLIP4IDCRetriever checkpoint's text_encoder, found by a glob."""
    state = {'text_encoder.' + k: v for k, v in tiny_clip.state_dict().items()
             if not k.startswith('visual.')}
    state['head.logit_scale'] = torch.tensor(4.6)
    torch.save(dict(state_dict=state, meta={}), tmp_path / 'best_rsum_epoch_3.pth')
    head = tiny_head(memory_dim=64, hidden=64,
                     pretrained=str(tmp_path / 'best_rsum_*.pth'))
    assert torch.equal(head.word_embed.weight, tiny_clip.token_embedding.weight)
    assert torch.equal(head.word_pos, tiny_clip.positional_embedding[:12])


def test_bad_embedding_sources_are_named(tiny_clip, tiny_clip_file):
    with pytest.raises(ValueError, match="width of CLIP's text tower"):
        tiny_head(pretrained=tiny_clip_file)  # hidden 32, CLIP text width 64
    with pytest.raises(ValueError, match='at least 40 rows'):
        tiny_head(memory_dim=64, hidden=64, max_length=40,
                  pretrained=tiny_clip_file)  # CLIP context length 32
    vision_only = {k: v for k, v in tiny_clip.state_dict().items()
                   if k.startswith('visual.')}
    with pytest.raises(KeyError, match='token_embedding.weight'):
        tiny_head(memory_dim=64, hidden=64, pretrained=vision_only)
    with pytest.raises(ValueError, match='num_encoder_layers'):
        tiny_head(num_encoder_layers=1)


@pytest.mark.parametrize('frozen', [True, False])
def test_frozen_embeddings_stay_fixed_in_training(frozen, tiny_clip_file):
    head = tiny_head(memory_dim=64, hidden=64, pretrained=tiny_clip_file,
                     freeze_word_embed=frozen, freeze_word_pos=frozen)
    init_default_scope('mmidc')
    wrapper = build_optim_wrapper(head, dict(
        optimizer=dict(type='BertAdam', lr=1e-2, weight_decay=0.01)))
    before = {n: p.detach().clone() for n, p in head.named_parameters()}
    loss = head.loss(torch.randn(B, T, 64), tokens_of(CAPTIONS))['loss_caption']
    wrapper.update_params(loss)
    for name in ('word_embed.weight', 'word_pos'):
        param = dict(head.named_parameters())[name]
        assert param.requires_grad is not frozen
        assert torch.equal(param, before[name]) is frozen, name
    assert not torch.equal(head.output_bias, before['output_bias'])


@pytest.mark.parametrize('vocab', [None, CAPTIONS])
def test_cached_and_uncached_decoding_agree(vocab):
    head = tiny_head(vocab=vocab and build_caption_vocab(vocab),
                     max_length=8).eval()
    memory = torch.randn(B, T, H)
    cached = head.greedy_decode(memory, use_cache=True)
    uncached = head.greedy_decode(memory, use_cache=False)
    assert torch.equal(cached.tokens, uncached.tokens)
    assert_close(cached.mean_logprob, uncached.mean_logprob)
    beam = head.beam_search(memory, beam_size=3)
    beam_uncached = head.beam_search(memory, beam_size=3, use_cache=False)
    assert torch.equal(beam.tokens, beam_uncached.tokens)
    assert_close(beam.score, beam_uncached.score)


def test_beam_size_one_is_greedy_and_stops_at_eot():
    head = tiny_head().eval()
    memory = torch.randn(B, T, H)
    greedy = head.greedy_decode(memory)
    beam = head.beam_search(memory, beam_size=1)
    assert torch.equal(greedy.tokens, beam.tokens)
    assert_close(greedy.mean_logprob, beam.mean_logprob)
    assert greedy.tokens.shape[1] <= 11  # max_length 12 counts the start token
    with torch.no_grad():  # an output bias sure of end-of-text: one step
        head.output_bias[EOT_ID] = 1e4
    assert head.greedy_decode(memory).tokens.tolist() == [[EOT_ID]] * B
    assert head.decode_text(head.greedy_decode(memory).tokens) == [''] * B


def test_the_loss_component_gets_the_compact_targets():
    """The paired-scene loss is a loss config; the head passes it float
    logits and compact targets, padding as its ignore_index."""
    vocab = build_caption_vocab(CAPTIONS)
    head = tiny_head(vocab=vocab,
                     loss=dict(type='PairedSceneCrossEntropyLoss'))
    assert head.loss_module.ignore_index == vocab.pad_id
    tokens = tokens_of(CAPTIONS)
    logits = torch.randn(B, tokens.shape[1] - 1, len(vocab))
    targets = vocab.to_compact(tokens[:, 1:])
    out = head.loss_from_logits(logits, tokens)
    assert torch.equal(out['loss_caption'], head.loss_module(logits, targets))
    with pytest.raises(ValueError, match='even batch'):
        head.loss_from_logits(logits[:3], tokens[:3])


def test_runs_under_bf16_autocast():
    head = tiny_head(vocab=build_caption_vocab(CAPTIONS))
    memory, tokens = torch.randn(B, T, H), tokens_of(CAPTIONS)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        loss = head.loss(memory, tokens)['loss_caption']
        loss.backward()
        head.eval()
        beam = head.beam_search(memory, beam_size=2)
    assert loss.dtype == torch.float32 and torch.isfinite(loss)
    assert torch.isfinite(beam.score).all()


@pytest.mark.parametrize('family', ['clip4idc_paper_captioner',
                                    'clip_ft_captioner', 'clip4idc_captioner'])
def test_a_checkpoint_written_before_the_rename_loads_strictly(family):
    """The paper head was ``BertCaptionHead`` and the from-scratch head
    ``TransformerCaptionHead`` until b3f5a14: the tensor names and shapes of
    that version (tests/data) are the names of the current models, and a
    state dict of them loads with ``strict=True``."""
    import json
    import pathlib

    from tests.helpers.regression_record import build_family
    names = json.loads((pathlib.Path(__file__).parents[2] / 'data' /
                        'captioner_state_names_b3f5a14.json').read_text())
    old = names['families'][family]
    model = build_family(family)
    assert {k: list(v.shape) for k, v in model.state_dict().items()} == old
    own = model.state_dict()  # integer buffers (vocabulary ids) as built
    state = {k: torch.randn(shape) if own[k].is_floating_point() else own[k]
             for k, shape in old.items()}
    result = model.load_state_dict(state, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
