"""projects.from_scratch WordPrior: the auxiliary head's flat word prior as
a logits processor of the search."""
import pytest
import torch

from mmidc.text import EOT_ID
from projects.from_scratch.models.processors import WordPrior
from tests.helpers.toy_decoder import A, B, MarkovDecoder


def test_adds_each_samples_row_to_its_beams():
    bias = torch.tensor([[1., 2.], [3., 4.]])
    scores = torch.zeros(6, 2, dtype=torch.float64)
    out = WordPrior(bias)(torch.zeros(6, 1, dtype=torch.long), scores)
    assert out.dtype == torch.float64 and scores.abs().sum() == 0  # not in place
    assert out.tolist() == [[1., 2.]] * 3 + [[3., 4.]] * 3
    with pytest.raises(ValueError, match='multiple'):
        WordPrior(bias)(torch.zeros(3, 1, dtype=torch.long), torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r'\[B, V\]'):
        WordPrior(torch.zeros(2, 3, 4))


@pytest.mark.parametrize('use_cache', [True, False])
def test_decoding_with_the_prior_is_decoding_the_biased_table(use_cache):
    """The prior in the search gives the tokens and scores of a decoder
    whose logits hold the bias (the same sum, bitwise)."""
    decoder, memory = MarkovDecoder(), torch.zeros(2, 1, 1)
    V, c = len(decoder.vocab), decoder.vocab.to_compact_id
    bias = torch.zeros(2, V)
    bias[0, c(B)] = 1.0  # log 0.4 + 1 > log 0.6
    bias[1, c(A)] = 1.0  # log 0.3 + 1 > log 0.4 (end)
    greedy = decoder.greedy_decode(memory, use_cache=use_cache,
                                   logits_processors=[WordPrior(bias)])
    assert greedy.tokens.tolist() == [[B, EOT_ID, 0, 0, 0], [A] * 5]
    for b in range(2):  # one pair at a time, the bias in the table
        biased = MarkovDecoder()
        biased.table = decoder.table + bias[b]
        for run in ('greedy', 'beam'):
            kw = dict(use_cache=use_cache)
            if run == 'beam':
                ours = decoder.beam_search(memory, 2, logits_processors=[
                    WordPrior(bias)], **kw)
                theirs = biased.beam_search(memory[:1], 2, **kw)
            else:
                ours, theirs = greedy, biased.greedy_decode(memory[:1], **kw)
            n = theirs.tokens.shape[1]
            assert torch.equal(ours.tokens[b, :n], theirs.tokens[0])
            assert (ours.tokens[b, n:] == 0).all()
            assert torch.equal(ours.score[b], theirs.score[0])
