"""mmidc.models.generation.generation: greedy and beam search over any decoder
that follows the protocol, on a toy Markov decoder whose best caption
greedy decoding misses."""
import math

import pytest
import torch

from mmidc.text import EOT_ID, CaptionVocab, clip_tokenizer
from mmidc.models.generation.generation import (CaptionGenerator, check_decode_cfg,
                                           extend_cache, generate)
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


class AddBias:
    """A processor adding a per-sample bias ``[B, V]`` (rows repeated for
    the beams), recording what it was called with."""

    def __init__(self, bias):
        self.bias, self.calls = bias, []

    def __call__(self, tokens, scores):
        self.calls.append((tokens.clone(), scores.clone()))
        rows = self.bias.repeat_interleave(scores.shape[0] // len(self.bias), 0)
        return scores + rows


class Ban:
    """A processor that bans the compact id ``word``."""

    def __init__(self, word):
        self.word = word

    def __call__(self, tokens, scores):
        scores = scores.clone()
        scores[:, self.word] = float('-inf')
        return scores


@pytest.mark.parametrize('use_cache', [True, False])
def test_processors_edit_every_steps_logits(use_cache):
    """Per pair: a bias for B turns the first pair's greedy caption into the
    beam's; one for A keeps the second repeating A to the length limit."""
    decoder, memory = MarkovDecoder(), torch.zeros(2, 1, 1)
    V, c = len(decoder.vocab), decoder.vocab.to_compact_id
    bias = torch.zeros(2, V)
    bias[0, c(B)] = 1.0  # log 0.4 + 1 > log 0.6
    bias[1, c(A)] = 1.0  # log 0.3 + 1 > log 0.4 (end)
    prior = AddBias(bias)
    greedy = decoder.greedy_decode(memory, use_cache=use_cache,
                                   logits_processors=[prior])
    assert greedy.tokens.tolist() == [[B, EOT_ID, 0, 0, 0], [A] * 5]
    # called at each step with the prefix so far and the raw logits
    assert [t.shape for t, _ in prior.calls] == [(2, i) for i in range(1, 6)]
    tokens, scores = prior.calls[1]
    assert tokens[:, 1].tolist() == [c(B), c(A)]
    assert torch.equal(scores, decoder.table[tokens[:, -1]])
    one = decoder.beam_search(memory, beam_size=1, use_cache=use_cache,
                              logits_processors=[AddBias(bias)])
    assert torch.equal(one.tokens, greedy.tokens)
    prior = AddBias(bias)
    beam = decoder.beam_search(memory, beam_size=2, use_cache=use_cache,
                               logits_processors=[prior])
    assert beam.tokens[0].tolist()[:2] == [B, EOT_ID]
    assert prior.calls[0][0].shape == (4, 1)  # 2 pairs x 2 beams
    plain = decoder.greedy_decode(memory, use_cache=use_cache,
                                  logits_processors=[AddBias(torch.zeros(2, V))])
    assert plain.tokens.tolist() == [[A, EOT_ID]] * 2
    cfg = check_decode_cfg(dict(strategy='beam', beam_size=2))
    assert torch.equal(generate(decoder, memory, cfg,
                                logits_processors=[AddBias(bias)]).tokens,
                       beam.tokens)


@pytest.mark.parametrize('use_cache', [True, False])
def test_a_banned_word_is_never_emitted(use_cache):
    """On random tables (every word may follow every word), the word the
    plain search writes first, once banned, is written by neither greedy nor
    beam search; the ban changes nothing else."""
    torch.manual_seed(0)
    decoder, memory = MarkovDecoder(), torch.zeros(2, 1, 1)
    decoder.vocab = CaptionVocab([A, B, 300, 400, 500, 600])
    V = len(decoder.vocab)
    for _ in range(5):
        decoder.table = torch.randn(V, V)
        decoder.table[:, decoder.vocab.eot_id] -= 2.0  # longer captions
        for run in (lambda **kw: decoder.greedy_decode(memory, **kw),
                    lambda **kw: decoder.beam_search(memory, beam_size=3, **kw)):
            plain = run(use_cache=use_cache)
            word = int(plain.tokens[0, 0])  # a CLIP id
            banned = run(use_cache=use_cache, logits_processors=[
                Ban(decoder.vocab.to_compact_id(word))])
            assert word not in banned.tokens.flatten().tolist()
            assert torch.isfinite(banned.score).all()


def test_processors_run_in_order():
    """A ban, then a processor that lifts every -inf score to 0: the banned
    word comes back (the later processor sees the earlier one's scores); in
    the other order it stays banned."""
    decoder, memory = MarkovDecoder(), torch.zeros(1, 1, 1)
    c = decoder.vocab.to_compact_id
    seen = []

    class Lift:
        def __call__(self, tokens, scores):
            seen.append(scores[:, c(B)].clone())
            return torch.where(torch.isinf(scores), torch.zeros_like(scores),
                               scores)

    out = decoder.greedy_decode(memory, logits_processors=[Ban(c(B)), Lift()])
    assert seen[0].item() == float('-inf')  # Lift ran after Ban
    assert out.tokens[0, 0].item() == B  # log 0.4 < 0: lifted B wins
    seen.clear()
    out = decoder.greedy_decode(memory, logits_processors=[Lift(), Ban(c(B))])
    assert seen[0].item() == pytest.approx(math.log(0.4))
    assert B not in out.tokens.flatten().tolist()


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
