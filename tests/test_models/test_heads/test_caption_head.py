import pytest
import torch

from mmidc.models.utils.caption_vocab import EOT_ID, SOT_ID, build_caption_vocab, clip_tokenizer
from mmidc.registry import MODELS

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'the cylinder moved']
B, T, D = 4, 10, 24  # pairs, memory tokens, memory width



@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny tensors: one intra-op thread is faster, and much faster on a busy
    machine (2 threads spin-wait when other processes hold the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

def tiny_head(**kwargs):
    cfg = dict(type='TransformerCaptionHead', memory_dim=D, hidden=32, num_heads=4,
               num_encoder_layers=1, num_decoder_layers=2, max_length=12,
               max_memory_tokens=T, dropout=0.0)
    cfg.update(kwargs)
    return MODELS.build(cfg)


def tokens_of(captions, length=12):
    return clip_tokenizer()(captions, context_length=length)  # [N, length]


def test_builds_with_paper_defaults():
    head = MODELS.build(dict(type='TransformerCaptionHead', memory_dim=768))
    assert len(head.encoder) == 3 and len(head.decoder) == 3
    assert head.word_embed.num_embeddings == 49408
    assert head.memory_proj.out_features == 512
    with pytest.raises(ValueError, match='num_heads'):
        MODELS.build(dict(type='TransformerCaptionHead', hidden=30, num_heads=8))


def test_loss_shapes_and_tied_embedding():
    head = tiny_head()
    out = head.loss(torch.randn(B, T, D), tokens_of(CAPTIONS))
    assert out['loss_caption'].ndim == 0 and 0 <= out['accuracy'] <= 1
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
    smooth = tiny_head(label_smoothing=0.1).loss(memory, tokens)['loss_caption']
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


def test_pooled_memory_tokens_append_one_max_token_per_segment():
    head = tiny_head(pooled_memory_tokens=True)
    memory = torch.randn(B, T, D)
    torch.testing.assert_close(head.segment_max(memory),
                               memory.view(B, 2, T // 2, D).max(2).values)
    assert head.encode(memory).shape == (B, T + 2, 32)
    assert 'pooled_embed' in dict(head.named_parameters())
    assert 'pooled_embed' not in dict(tiny_head().named_parameters())
    # raising one token of the second segment changes the pooled tokens
    bumped = memory.clone()
    bumped[:, T - 1] += 10.0
    head.eval()
    assert not torch.allclose(head.encode(bumped)[:, -1], head.encode(memory)[:, -1])
    cached = head.greedy_decode(memory, use_cache=True)
    uncached = head.greedy_decode(memory, use_cache=False)
    assert torch.equal(cached.tokens, uncached.tokens)


def test_word_targets_are_the_caption_words_without_start_and_padding():
    head = tiny_head()
    tokens = tokens_of(['the cube moved', 'the the cube'])
    hot = head.word_targets(tokens)  # [2, V]
    words = clip_tokenizer()(['the', 'cube', 'moved'], context_length=3)[:, 1]
    assert hot[0].nonzero().flatten().tolist() == sorted([*words.tolist(), EOT_ID])
    assert hot[1].nonzero().flatten().tolist() == sorted([*words[:2].tolist(), EOT_ID])
    assert hot[:, SOT_ID].sum() == 0 and hot[:, 0].sum() == 0


def test_word_loss_is_weighted_bce_on_pooled_memory_and_trains():
    with pytest.raises(ValueError, match='word_loss_weight'):
        tiny_head(word_loss_weight=-1.0)
    assert 'loss_words' not in tiny_head().loss(torch.randn(B, T, D), tokens_of(CAPTIONS))
    torch.manual_seed(0)
    head = tiny_head(word_loss_weight=2.0)
    memory = torch.randn(B, T, D, requires_grad=True)
    tokens = tokens_of(CAPTIONS)
    out = head.loss(memory, tokens)
    logits = head.word_classifier(head.segment_max(memory).flatten(1))
    expected = 2.0 * torch.nn.functional.binary_cross_entropy_with_logits(
        logits, head.word_targets(tokens))
    torch.testing.assert_close(out['loss_words'], expected)
    out['loss_words'].backward()
    assert memory.grad.abs().sum() > 0
    # a few steps on one batch fit the words of its captions
    memory = memory.detach()
    opt = torch.optim.Adam(head.word_classifier.parameters(), lr=0.05)
    first = head.loss(memory, tokens)['loss_words'].item()
    for _ in range(20):
        opt.zero_grad()
        head.loss(memory, tokens)['loss_words'].backward()
        opt.step()
    assert head.loss(memory, tokens)['loss_words'].item() < 0.5 * first


def test_reference_word_targets_are_the_fraction_of_references_with_the_word():
    with pytest.raises(ValueError, match='word_targets'):
        tiny_head(word_loss_weight=1.0, word_targets='words')
    head = tiny_head(word_loss_weight=1.0, word_targets='references')
    refs = [['the cube moved', 'the red cube moved', 'the cube is gone', 'cube'],
            ['there is no change']]
    soft = head.reference_word_targets(refs)  # [2, V]
    the, cube, moved, red = clip_tokenizer()(
        ['the', 'cube', 'moved', 'red'], context_length=3)[:, 1].tolist()
    torch.testing.assert_close(soft[0, [cube, the, moved, red, EOT_ID]],
                               torch.tensor([1.0, 0.75, 0.5, 0.25, 1.0]))
    torch.testing.assert_close(soft[1], head.word_targets(tokens_of(refs[1]))[0])
    # the loss uses them (not the sampled caption), and asks for them
    memory, tokens = torch.randn(2, T, D), tokens_of(['the cube moved', 'there is no change'])
    logits = head.word_classifier(head.segment_max(memory).flatten(1))
    torch.testing.assert_close(
        head.loss(memory, tokens, refs)['loss_words'],
        torch.nn.functional.binary_cross_entropy_with_logits(logits, soft))
    with pytest.raises(ValueError, match='reference captions per pair'):
        head.loss(memory, tokens)


def test_change_tokens_read_the_changed_position_of_both_images():
    with pytest.raises(ValueError, match='change_tokens'):
        tiny_head(change_tokens=-1)
    head = tiny_head(change_tokens=2, word_loss_weight=1.0)
    n = T // 2  # tokens per image segment
    memory = torch.randn(B, T, D)
    memory[:, n:] = memory[:, :n]  # after == before ...
    memory[:, n + 3] += 5.0  # ... except at position 3
    # score = |after - before| summed over channels: the softmax peaks there
    with torch.no_grad():
        head.change_score.weight.zero_()
        head.change_score.weight[:, 2 * D:] = 1.0
        head.change_score.bias.zero_()
    change = head.change_readout(memory)  # [B, 4, D]
    assert change.shape == (B, 4, D)
    torch.testing.assert_close(change[:, :2], memory[:, None, 3].expand(B, 2, D))
    torch.testing.assert_close(change[:, 2:], memory[:, None, n + 3].expand(B, 2, D))
    # they join the memory and the word classifier's input
    assert head.encode(memory).shape == (B, T + 4, 32)
    assert head.word_classifier.in_features == (2 + 4) * D
    torch.testing.assert_close(head.pooled_features(memory),
                               torch.cat([head.segment_max(memory), change], 1).flatten(1))
    # the word loss trains the position scores (of a fresh, unsaturated head)
    head = tiny_head(change_tokens=2, word_loss_weight=1.0)
    head.loss(memory, tokens_of(CAPTIONS))['loss_words'].backward()
    assert head.change_score.weight.grad.abs().sum() > 0


def test_word_prior_adds_the_classifier_log_belief_to_every_step():
    with pytest.raises(ValueError, match='word_loss_weight > 0'):
        tiny_head(word_prior=True)
    vocab = build_caption_vocab(CAPTIONS)
    head = tiny_head(vocab=vocab, word_loss_weight=1.0, change_tokens=2,
                     word_prior=True).eval()
    memory, tokens = torch.randn(B, T, D), tokens_of(CAPTIONS)
    summary = head.summary_tokens(memory)
    prior = head.word_prior(summary)  # [B, V]
    word_logits = head.word_classifier(summary.flatten(1))
    torch.testing.assert_close(prior, torch.nn.functional.logsigmoid(word_logits))
    # teacher-forced logits: the decoder's own plus the prior at each position
    compact = head.vocab.to_compact(tokens)[:, :-1]
    plain = head.decode_step(compact, head.cross_kv(head.encode(memory, summary)))
    torch.testing.assert_close(head(memory, tokens), plain + prior[:, None])
    # decoding applies it too (greedy, cached or not, and beam search)
    cached = head.greedy_decode(memory, use_cache=True)
    assert torch.equal(cached.tokens, head.greedy_decode(memory, use_cache=False).tokens)
    assert torch.equal(cached.tokens, head.beam_search(memory, beam_size=1).tokens)
    with torch.no_grad():  # a classifier sure of one word makes greedy say it
        head.word_classifier.weight.zero_()
        head.word_classifier.bias.fill_(-30.0)
        head.word_classifier.bias[head.vocab.eot_id] = 30.0
    for out in head.greedy_decode(memory), head.beam_search(memory, beam_size=3):
        assert out.tokens.tolist() == [[EOT_ID]] * B
    # the caption loss trains the classifier and the scale through the prior
    head.train()
    head.loss(memory, tokens, references=None)['loss_caption'].backward()
    assert head.word_prior_scale.grad is not None
    assert head.word_classifier.weight.grad.abs().sum() > 0
