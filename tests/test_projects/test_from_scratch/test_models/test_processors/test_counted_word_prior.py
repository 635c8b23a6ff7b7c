"""projects.from_scratch CountedWordPrior: a word prior by how often the
caption already holds each word, as a logits processor of the search; the
counts of teacher forcing (prefix_word_counts, counted_bias)."""
import pytest
import torch

from mmidc.text import EOT_ID, CaptionVocab
from projects.from_scratch.models.processors import (CountedWordPrior,
                                                     counted_bias,
                                                     prefix_word_counts)
from tests.helpers.toy_decoder import A, B, MarkovDecoder


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
    V = bias.shape[-1]
    for prev, word in zip(words, words[1:]):
        row = bias[0, counts.clamp(max=bias.shape[1] - 1), torch.arange(V)]
        logits = decoder.table[prev] + row
        logits[[decoder.vocab.pad_id, decoder.vocab.sot_id,
                decoder.vocab.unk_id]] = float('-inf')
        total += logits.log_softmax(-1)[word]
        counts[word] += 1
    return total, len(words) - 1


@pytest.mark.parametrize('use_cache', [True, False])
def test_counted_prior_follows_how_often_a_word_was_written(use_cache):
    """A bias for A that holds for its first (and second) writing only:
    greedy writes A that many times, then ends; a flat one repeats A."""
    decoder, memory = MarkovDecoder(), torch.zeros(1, 1, 1)

    def greedy(bias):
        return decoder.greedy_decode(memory, use_cache=use_cache,
                                     logits_processors=[CountedWordPrior(bias)])

    once = counted_toy_bias(decoder, [1.0, -5.0])
    assert greedy(once).tokens.tolist() == [[A, EOT_ID]]
    twice = counted_toy_bias(decoder, [1.0, 1.0, -5.0])
    assert greedy(twice).tokens.tolist() == [[A, A, EOT_ID]]
    flat = counted_toy_bias(decoder, [1.0])  # K = 1: the plain bias
    assert greedy(flat).tokens.tolist() == [[A] * 5]
    for bias in (once, twice):  # beam 1 is greedy
        one = decoder.beam_search(memory, beam_size=1, use_cache=use_cache,
                                  logits_processors=[CountedWordPrior(bias)])
        assert torch.equal(one.tokens, greedy(bias).tokens)
    # on a random table (every word may follow every word) beams change
    # places: the winner's score is its caption's under the counted bias
    # (the counts follow the beams)
    torch.manual_seed(0)
    decoder.vocab = CaptionVocab([A, B, 300, 400, 500, 600])
    V = len(decoder.vocab)
    for _ in range(10):
        decoder.table = torch.randn(V, V)
        decoder.table[:, decoder.vocab.eot_id] -= 2.0  # longer captions
        bias = torch.randn(1, 3, V) * 2
        beam = decoder.beam_search(memory, beam_size=3, use_cache=use_cache,
                                   logits_processors=[CountedWordPrior(bias)])
        total, length = rescore(decoder, bias, beam.tokens[0])
        assert torch.allclose(beam.score, torch.tensor([total / length]))


def test_the_processor_adds_the_row_of_each_words_count():
    bias = torch.arange(2 * 3 * 4, dtype=torch.float).view(2, 3, 4)  # [B, K, V]
    tokens = torch.tensor([[0, 1, 1, 1], [0, 2, 3, 3]]).repeat_interleave(2, 0)
    scores = torch.zeros(4, 4)
    out = CountedWordPrior(bias)(tokens, scores)  # 2 beams per sample
    assert scores.abs().sum() == 0  # not in place
    for n in range(4):
        for w in range(4):
            c = int((tokens[n, 1:] == w).sum())
            assert out[n, w] == bias[n // 2, min(c, 2), w]
    with pytest.raises(ValueError, match=r'\[B, K, V\]'):
        CountedWordPrior(torch.zeros(2, 4))


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
