"""mmidc.models.utils.generation: greedy and beam search over any decoder
that follows the protocol, on a toy Markov decoder whose best caption
greedy decoding misses."""
import math

import pytest
import torch

from mmidc.text import EOT_ID, CaptionVocab, clip_tokenizer
from mmidc.models.utils.generation import (CaptionGenerator, check_decode_cfg,
                                           counted_bias, extend_cache, generate,
                                           prefix_word_counts)
from tests.helpers.toy_decoder import A, B, MarkovDecoder


@pytest.mark.parametrize('use_cache', [True, False])
def test_beam_finds_the_caption_greedy_misses(use_cache):
    decoder, memory = MarkovDecoder(), torch.zeros(2, 1, 1)
    greedy = decoder.greedy_decode(memory, use_cache=use_cache)
    assert greedy.tokens.tolist() == [[A, EOT_ID]] * 2
    assert torch.allclose(greedy.mean_logprob, torch.tensor(math.log(.24) / 2))
    beam = decoder.beam_search(memory, beam_size=3, use_cache=use_cache)
    assert beam.tokens.tolist() == [[B, EOT_ID]] * 2
    assert torch.allclose(beam.score, torch.tensor(math.log(.4) / 2))
    assert decoder.decode_text(beam.tokens) == [decoder.vocab.decode(
        torch.tensor([B, EOT_ID]))] * 2
    # beam_size=1 is greedy; generate() follows decode_cfg
    one = decoder.beam_search(memory, beam_size=1, use_cache=use_cache)
    assert torch.equal(one.tokens, greedy.tokens)
    cfg = check_decode_cfg(dict(strategy='beam'))
    assert torch.equal(generate(decoder, memory, cfg).tokens, beam.tokens)


@pytest.mark.parametrize('use_cache', [True, False])
def test_logit_bias_is_added_to_every_step(use_cache):
    """Per pair: a bias for B turns the first pair's greedy caption into the
    beam's; one for A keeps the second repeating A to the length limit."""
    decoder, memory = MarkovDecoder(), torch.zeros(2, 1, 1)
    V, c = len(decoder.vocab), decoder.vocab.to_compact_id
    bias = torch.zeros(2, V)
    bias[0, c(B)] = 1.0  # log 0.4 + 1 > log 0.6
    bias[1, c(A)] = 1.0  # log 0.3 + 1 > log 0.4 (end)
    greedy = decoder.greedy_decode(memory, use_cache=use_cache, logit_bias=bias)
    assert greedy.tokens.tolist() == [[B, EOT_ID, 0, 0, 0], [A] * 5]
    one = decoder.beam_search(memory, beam_size=1, use_cache=use_cache,
                              logit_bias=bias)
    assert torch.equal(one.tokens, greedy.tokens)
    beam = decoder.beam_search(memory, beam_size=2, use_cache=use_cache,
                               logit_bias=bias)
    assert beam.tokens[0].tolist()[:2] == [B, EOT_ID]
    plain = decoder.greedy_decode(memory, use_cache=use_cache,
                                  logit_bias=torch.zeros(2, V))
    assert plain.tokens.tolist() == [[A, EOT_ID]] * 2


def counted_toy_bias(decoder, a_rows):
    """A counted bias ``[1, K, V]``: ``a_rows[k]`` for A once the caption
    holds it ``k`` times, nothing for the other words."""
    V = len(decoder.vocab)
    bias = torch.zeros(1, len(a_rows), V)
    bias[0, :, decoder.vocab.to_compact_id(A)] = torch.tensor(a_rows)
    return bias


def rescore(decoder, bias, tokens):
    """Sum of log-probs of the CLIP ids ``tokens`` ``[T]`` (end included),
    each step biased by the row of the counts so far: an independent loop."""
    c = decoder.vocab.to_compact_id
    words = [decoder.vocab.sot_id] + [c(int(t)) for t in tokens if int(t)]
    counts, total = torch.zeros(bias.shape[-1], dtype=torch.long), 0.0
    for prev, word in zip(words, words[1:]):
        row = bias[0, counts.clamp(max=bias.shape[1] - 1), torch.arange(bias.shape[-1])]
        total += decoder._log_probs(decoder.table[prev][None].clone(), row[None])[0, word]
        counts[word] += 1
    return total, len(words) - 1


@pytest.mark.parametrize('use_cache', [True, False])
def test_counted_bias_follows_how_often_a_word_was_written(use_cache):
    """A bias for A that holds for its first (and second) writing only:
    greedy writes A that many times, then ends; a flat bias repeats A."""
    decoder, memory = MarkovDecoder(), torch.zeros(1, 1, 1)
    once = counted_toy_bias(decoder, [1.0, -5.0])
    greedy = decoder.greedy_decode(memory, use_cache=use_cache, logit_bias=once)
    assert greedy.tokens.tolist() == [[A, EOT_ID]]
    twice = counted_toy_bias(decoder, [1.0, 1.0, -5.0])
    greedy = decoder.greedy_decode(memory, use_cache=use_cache, logit_bias=twice)
    assert greedy.tokens.tolist() == [[A, A, EOT_ID]]
    flat = counted_toy_bias(decoder, [1.0])  # K = 1: the plain bias
    assert decoder.greedy_decode(memory, use_cache=use_cache,
                                 logit_bias=flat).tokens.tolist() == [[A] * 5]
    # beam search: beam 1 is greedy; a wider beam's score is that of its
    # caption under the counted bias (the counts follow the beams)
    for bias in (once, twice):
        one = decoder.beam_search(memory, beam_size=1, use_cache=use_cache,
                                  logit_bias=bias)
        assert torch.equal(one.tokens, decoder.greedy_decode(
            memory, use_cache=use_cache, logit_bias=bias).tokens)
    # on a random table (every word may follow every word) beams change
    # places: the winner's score is its caption's under the counted bias
    torch.manual_seed(0)
    decoder.vocab = CaptionVocab([A, B, 300, 400, 500, 600])
    V = len(decoder.vocab)
    for _ in range(10):
        decoder.table = torch.randn(V, V)
        decoder.table[:, decoder.vocab.eot_id] -= 2.0  # longer captions
        bias = torch.randn(1, 3, V) * 2
        beam = decoder.beam_search(memory, beam_size=3, use_cache=use_cache,
                                   logit_bias=bias)
        total, length = rescore(decoder, bias, beam.tokens[0])
        assert torch.allclose(beam.score, torch.tensor([total / length]))


def test_prefix_word_counts_and_counted_bias_against_a_loop():
    torch.manual_seed(0)
    N, t, V, K = 3, 7, 6, 3
    tokens = torch.randint(1, V, (N, t))
    tokens[:, 0] = 0  # the start token is never counted
    counts = prefix_word_counts(tokens, V)  # [N, t, V]
    bias = torch.randn(N, K, V)
    out = counted_bias(bias, counts)  # [N, t, V]
    for n in range(N):
        for i in range(t):
            for w in range(V):
                c = int((tokens[n, 1:i + 1] == w).sum())
                assert counts[n, i, w] == c
                assert out[n, i, w] == bias[n, min(c, K - 1), w]
    # one step ([N, V] counts) and the plain [N, V] bias
    assert torch.equal(counted_bias(bias, counts[:, -1]), out[:, -1])
    plain = torch.randn(N, V)
    assert counted_bias(plain, counts[:, -1]) is plain
    assert counted_bias(plain, counts).shape == (N, 1, V)
    with pytest.raises(ValueError, match='logit_bias must be'):
        counted_bias(torch.zeros(N), counts)


def test_extend_cache_appends_along_positions():
    cache = {}
    k, v = extend_cache(cache, torch.zeros(2, 1, 3, 4), torch.ones(2, 1, 3, 4))
    assert k.shape == (2, 1, 3, 4) and cache['v'] is v
    k, v = extend_cache(cache, torch.full((2, 1, 1, 4), 5.), torch.zeros(2, 1, 1, 4))
    assert k.shape == v.shape == (2, 1, 4, 4) and cache['k'] is k
    assert k[:, :, -1].eq(5).all() and v[:, :, :3].eq(1).all()


def test_reorder_caches_keeps_the_given_rows():
    caches = [dict(k=torch.arange(3), v=torch.arange(3) * 10)]
    CaptionGenerator.reorder_caches(caches, torch.tensor([2, 2, 0]))
    assert caches[0]['k'].tolist() == [2, 2, 0]
    assert caches[0]['v'].tolist() == [20, 20, 0]
    CaptionGenerator.reorder_caches(None, torch.tensor([0]))  # no cache: no-op


def test_bad_decode_cfg_and_incomplete_decoders_are_named():
    assert check_decode_cfg({}) == dict(strategy='greedy', beam_size=3,
                                        length_penalty=1.0, max_length=None)
    with pytest.raises(KeyError, match='stratgy'):
        check_decode_cfg(dict(stratgy='beam'))
    with pytest.raises(ValueError, match='sample'):
        check_decode_cfg(dict(strategy='sample'))
    with pytest.raises(ValueError, match='beam_size'):
        MarkovDecoder().beam_search(torch.zeros(1, 1, 1), beam_size=0)

    class Incomplete(CaptionGenerator):
        vocab, max_length = CaptionVocab([A]), 4

    with pytest.raises(NotImplementedError, match='Incomplete must implement'):
        Incomplete().greedy_decode(torch.zeros(1, 1, 1))


def test_init_vocab_sets_the_protocols_vocabulary():
    decoder = CaptionGenerator()
    decoder.init_vocab(5, ['a red cube', 'a cube'])
    assert decoder.max_length == 5 and isinstance(decoder.vocab, CaptionVocab)
    ids = decoder.vocab.to_clip(decoder.vocab.to_compact(clip_tokenizer()('a red cube', 8)))
    assert decoder.vocab.decode(ids[0]) == 'a red cube'  # the captions' words
    with pytest.raises(ValueError, match='max_length must be >= 2'):
        CaptionGenerator().init_vocab(1, None)
