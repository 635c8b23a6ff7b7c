"""A toy caption decoder on :class:`CaptionGenerator`'s protocol whose best
caption greedy decoding misses."""
import torch

from mmidc.text import CaptionVocab
from mmidc.models.generation.generation import CaptionGenerator

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

    def start_decoding(self, memory, repeat, use_cache):
        tokens = torch.full((memory.shape[0] * repeat, 1), self.vocab.sot_id)
        caches = [dict(seen=tokens.clone())] if use_cache else None
        return tokens, None, caches

    def next_logits(self, tokens, context, caches):
        if caches is not None:
            cache = caches[0]
            assert torch.equal(cache['seen'], tokens[:, :-1]) or \
                torch.equal(cache['seen'], tokens)  # reordered with the beams
            cache['seen'] = tokens.clone()
        return self.table[tokens[:, -1]].clone()
