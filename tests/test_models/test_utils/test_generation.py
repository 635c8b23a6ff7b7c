"""mmidc.models.utils.generation: greedy and beam search over any decoder
that follows the protocol, on a toy Markov decoder whose best caption
greedy decoding misses."""
import math

import pytest
import torch

from mmidc.models.utils.caption_vocab import EOT_ID, CaptionVocab
from mmidc.models.utils.generation import (CaptionGenerator, check_decode_cfg,
                                           generate)

A, B = 100, 200  # CLIP ids of the toy's two words


class MarkovDecoder(CaptionGenerator):
    """The next word depends on the last one only:
    start -> A 0.6 | B 0.4; A -> end 0.4 | A 0.3 | B 0.3; B -> end 1.0.
    Its cache holds the tokens so far, which must follow the beams."""

    def __init__(self):
        self.vocab = CaptionVocab([A, B])
        self.max_length = 6
        V, c = len(self.vocab), self.vocab.to_compact_id
        table = torch.full((V, V), float('-inf'))
        table[self.vocab.sot_id, [c(A), c(B)]] = torch.tensor([0.6, 0.4]).log()
        table[c(A), [self.vocab.eot_id, c(A), c(B)]] = torch.tensor([.4, .3, .3]).log()
        table[c(B), self.vocab.eot_id] = 0.0
        table[self.vocab.eot_id, self.vocab.eot_id] = 0.0
        table[self.vocab.pad_id, self.vocab.eot_id] = 0.0
        self.table = table

    def start_decoding(self, memory, repeat, use_cache, extra_tokens=None,
                       logit_bias=None):
        tokens = torch.full((memory.shape[0] * repeat, 1), self.vocab.sot_id)
        caches = [dict(seen=tokens.clone())] if use_cache else None
        return tokens, None, caches, logit_bias

    def next_logits(self, tokens, context, caches, prior=None):
        if caches is not None:
            cache = caches[0]
            assert torch.equal(cache['seen'], tokens[:, :-1]) or \
                torch.equal(cache['seen'], tokens)  # reordered with the beams
            cache['seen'] = tokens.clone()
        return self.table[tokens[:, -1]].clone()


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
