import pytest
import torch

from mmidc.text import EOT_ID, SOT_ID, build_caption_vocab, clip_tokenizer
from mmidc.registry import MODELS
from projects.from_scratch.models.processors import CountedWordPrior, WordPrior

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'the cylinder moved']
B, T, D = 4, 10, 24  # pairs, memory tokens, memory width


def tiny_head(**kwargs):
    cfg = dict(type='ScratchCaptionHead', memory_dim=D, hidden=32, num_heads=4,
               num_encoder_layers=1, num_decoder_layers=2, max_length=12,
               max_memory_tokens=T, dropout=0.0)
    cfg.update(kwargs)
    return MODELS.build(cfg)


def tokens_of(captions, length=12):
    return clip_tokenizer()(captions, context_length=length)  # [N, length]


def test_builds_with_paper_defaults():
    head = MODELS.build(dict(type='ScratchCaptionHead', memory_dim=768))
    assert len(head.encoder) == 3 and len(head.decoder) == 3
    assert head.word_embed.num_embeddings == 49408
    assert head.memory_proj.out_features == 512
    with pytest.raises(ValueError, match='num_heads'):
        MODELS.build(dict(type='ScratchCaptionHead', hidden=30, num_heads=8))


def test_loss_shapes_and_tied_embedding():
    head = tiny_head()
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    out = head.loss(memory, tokens)
    assert out['loss_caption'].ndim == 0
    # accuracy: the share of non-pad next tokens that the logits' argmax hits
    targets = head.vocab.to_compact(tokens[:, 1:])
    hits = head(memory, tokens).argmax(-1) == targets
    valid = targets != head.vocab.pad_id
    assert out['accuracy'] == pytest.approx(
        (hits & valid).sum().item() / valid.sum().item())
    out['loss_caption'].backward()
    assert head.word_embed.weight.grad.abs().sum() > 0
    assert not any('out_proj.weight' == n for n, _ in head.named_parameters())
    with pytest.raises(ValueError, match='max_memory_tokens'):
        head.encode(torch.randn(B, T + 2, D))


def test_loss_ignores_padding():
    head = tiny_head()
    tokens = tokens_of(CAPTIONS)
    logits = head(torch.randn(B, T, D), tokens)  # [B, L-1, V]
    loss = head.loss_from_logits(logits, tokens)['loss_caption']
    pad = tokens[:, 1:] == 0
    assert pad.any()
    changed = logits.detach().clone()
    changed[pad] = torch.randn_like(changed[pad]) * 100
    torch.testing.assert_close(head.loss_from_logits(changed, tokens)['loss_caption'], loss)


def test_restricted_vocab_loss_equals_full_logits_restricted():
    vocab = build_caption_vocab(CAPTIONS)
    full, small = tiny_head(), tiny_head(vocab=vocab)
    state = full.state_dict()
    rows = vocab.clip_ids.clamp(min=0)  # the unk row (-1) gets an arbitrary row
    state['word_embed.weight'] = state['word_embed.weight'][rows]
    state['vocab.clip_ids'] = vocab.clip_ids
    small.load_state_dict(state)
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    full_logits = full(memory, tokens)  # [B, L-1, 49408]
    expected = torch.nn.functional.cross_entropy(
        full_logits[..., rows].flatten(0, 1), vocab.to_compact(tokens[:, 1:]).flatten(),
        ignore_index=0)
    torch.testing.assert_close(small.loss(memory, tokens)['loss_caption'], expected)
    assert small.word_embed.num_embeddings == len(vocab) < 30


def test_label_smoothing_changes_loss():
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    plain = tiny_head().loss(memory, tokens)['loss_caption']
    smooth = tiny_head(loss=dict(type='CaptionCrossEntropyLoss',
                                 label_smoothing=0.1)).loss(memory, tokens)['loss_caption']
    assert not torch.isclose(plain, smooth)


@pytest.mark.parametrize('vocab', [None, CAPTIONS])
def test_cached_and_uncached_decoding_agree(vocab):
    head = tiny_head(vocab=vocab and build_caption_vocab(vocab), max_length=8).eval()
    memory = torch.randn(B, T, D)
    cached = head.greedy_decode(memory, use_cache=True)
    uncached = head.greedy_decode(memory, use_cache=False)
    assert torch.equal(cached.tokens, uncached.tokens)
    torch.testing.assert_close(cached.mean_logprob, uncached.mean_logprob)
    beam = head.beam_search(memory, beam_size=3, use_cache=True)
    beam_uncached = head.beam_search(memory, beam_size=3, use_cache=False)
    assert torch.equal(beam.tokens, beam_uncached.tokens)
    torch.testing.assert_close(beam.score, beam_uncached.score)


def test_beam_size_one_is_greedy():
    head = tiny_head().eval()
    memory = torch.randn(B, T, D)
    greedy = head.greedy_decode(memory)
    beam = head.beam_search(memory, beam_size=1, length_penalty=1.0)
    assert torch.equal(greedy.tokens, beam.tokens)
    torch.testing.assert_close(greedy.mean_logprob, beam.mean_logprob)


def test_decoding_stops_at_eot_per_sequence():
    head = tiny_head(max_length=8).eval()
    memory = torch.randn(B, T, D)
    out = head.greedy_decode(memory)
    assert out.tokens.shape[1] <= 7
    for row in out.tokens.tolist():
        assert SOT_ID not in row
        if EOT_ID in row:  # everything after end-of-text is padding
            assert all(t == 0 for t in row[row.index(EOT_ID) + 1:])
    assert len(head.decode_text(out.tokens)) == B
    with torch.no_grad():  # every final state points at end-of-text: one step
        head.ln_out.weight.zero_()
        head.ln_out.bias.copy_(head.word_embed.weight[EOT_ID] * 100)
    for out in head.greedy_decode(memory), head.beam_search(memory, beam_size=3):
        assert out.tokens.tolist() == [[EOT_ID]] * B
        assert head.decode_text(out.tokens) == [''] * B


def test_runs_under_bf16_autocast():
    head = tiny_head(vocab=build_caption_vocab(CAPTIONS))
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        loss = head.loss(memory, tokens)['loss_caption']
        loss.backward()
        head.eval()
        greedy = head.greedy_decode(memory)
        beam = head.beam_search(memory, beam_size=2)
    assert loss.dtype == torch.float32 and torch.isfinite(loss)
    assert head.word_embed.weight.dtype == torch.float32
    assert greedy.tokens.shape[0] == beam.tokens.shape[0] == B
    assert torch.isfinite(beam.score).all()


def test_extra_tokens_join_the_memory_with_their_own_embeddings():
    head = tiny_head(num_extra_tokens=3)
    memory, extra = torch.randn(B, T, D), torch.randn(B, 3, D)
    assert head.encode(memory, extra).shape == (B, T + 3, 32)
    assert head.extra_embed.shape == (3, 32)
    assert 'extra_embed' not in dict(tiny_head().named_parameters())
    with pytest.raises(ValueError, match='expects 3 extra tokens'):
        head.encode(memory)
    with pytest.raises(ValueError, match='num_extra_tokens=0'):
        tiny_head().encode(memory, extra)
    # they reach the encoded memory and the decoder
    head.eval()
    bumped = extra.clone()
    bumped[:, -1] += 10.0
    assert not torch.allclose(head.encode(memory, bumped)[:, -1],
                              head.encode(memory, extra)[:, -1])
    cached = head.greedy_decode(memory, use_cache=True, extra_tokens=extra)
    uncached = head.greedy_decode(memory, use_cache=False, extra_tokens=extra)
    assert torch.equal(cached.tokens, uncached.tokens)
    beam = head.beam_search(memory, beam_size=1, extra_tokens=extra)
    assert torch.equal(cached.tokens, beam.tokens)


def test_logit_bias_is_added_at_every_step():
    vocab = build_caption_vocab(CAPTIONS)
    head = tiny_head(vocab=vocab).eval()
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    bias = torch.randn(B, len(head.vocab))
    # teacher-forced logits: the decoder's own plus the bias at each position
    compact = head.vocab.to_compact(tokens)[:, :-1]
    plain = head.decode_step(compact, head.cross_kv(head.encode(memory)))
    torch.testing.assert_close(head(memory, tokens, logit_bias=bias),
                               plain + bias[:, None])
    # decoding applies it as a processor (greedy, cached or not, and beam
    # search)
    prior = [WordPrior(bias)]
    cached = head.greedy_decode(memory, use_cache=True, logits_processors=prior)
    assert torch.equal(cached.tokens, head.greedy_decode(
        memory, use_cache=False, logits_processors=prior).tokens)
    assert torch.equal(cached.tokens, head.beam_search(
        memory, beam_size=1, logits_processors=prior).tokens)
    sure = torch.full((B, len(head.vocab)), -30.0)  # a bias sure of one word
    sure[:, head.vocab.eot_id] = 30.0
    for out in (head.greedy_decode(memory, logits_processors=[WordPrior(sure)]),
                head.beam_search(memory, beam_size=3,
                                 logits_processors=[WordPrior(sure)])):
        assert out.tokens.tolist() == [[EOT_ID]] * B
    # the caption loss trains what the bias comes from
    bias = bias.requires_grad_(True)
    head.loss(memory, tokens, logit_bias=bias)['loss_caption'].backward()
    assert bias.grad.abs().sum() > 0


def test_counted_logit_bias_follows_the_words_before_each_position():
    """Teacher forcing adds each position's row of the counted bias (by the
    counts of the words before it), as decoding does: the greedy caption is
    the argmax of the teacher-forced logits on itself."""
    vocab = build_caption_vocab(CAPTIONS)
    head = tiny_head(vocab=vocab).eval()
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    V = len(head.vocab)
    bias = torch.randn(B, 3, V) * 3
    compact = head.vocab.to_compact(tokens)[:, :-1]  # [B, L-1]
    plain = head.decode_step(compact, head.cross_kv(head.encode(memory)))
    expected = plain.clone()
    for b in range(B):
        for i in range(compact.shape[1]):
            for w in range(V):
                c = int((compact[b, 1:i + 1] == w).sum())
                expected[b, i, w] += bias[b, min(c, 2), w]
    torch.testing.assert_close(head(memory, tokens, logit_bias=bias), expected)
    prior = [CountedWordPrior(bias)]
    out = head.greedy_decode(memory, logits_processors=prior)
    assert torch.equal(out.tokens, head.greedy_decode(
        memory, use_cache=False, logits_processors=prior).tokens)
    for b in range(B):
        ids = out.tokens[b][out.tokens[b] != 0]  # up to end-of-text
        forced = head(memory[b:b + 1], torch.cat([tokens[:1, :1], ids[None]], 1),
                      logit_bias=bias[b:b + 1])  # [1, n, V]
        banned = [head.vocab.pad_id, head.vocab.sot_id, head.vocab.unk_id]
        forced[..., [i for i in banned if i is not None]] = float('-inf')  # never decoded
        assert torch.equal(head.vocab.to_clip(forced.argmax(-1))[0], ids)
