"""BaseCaptionHead: teacher forcing, the loss component and the decoding
protocol over any encoder/decoder a head provides."""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from mmidc.models.heads import BaseCaptionHead
from mmidc.models.layers import DecoderLayer
from mmidc.text import clip_tokenizer

CAPTIONS = ['the cube moved', 'nothing changed', 'a ball appeared',
            'the cube is gone']
H = 8


class TinyHead(BaseCaptionHead):
    """The least a head provides: the memory as it is (shifted by an input
    of the head's own), one decoder layer, a linear output."""

    def __init__(self, **kwargs):
        super().__init__(max_length=6, vocab=CAPTIONS,
                         loss=kwargs.pop('loss', dict(type='CaptionCrossEntropyLoss')))
        self.word_embed = nn.Embedding(len(self.vocab), H)
        self.word_pos = nn.Parameter(torch.randn(6, H))
        self.decoder = nn.ModuleList([DecoderLayer(H, 2, 16)])
        self.out = nn.Linear(H, len(self.vocab))

    def encode(self, memory, shift=None):
        return memory if shift is None else memory + shift

    def cross_kv(self, encoded):
        return [layer.cross_attn.key_value(encoded) for layer in self.decoder]

    def embed_tokens(self, tokens, start=0):
        return self.word_embed(tokens) + self.word_pos[start:start + tokens.shape[1]]

    def output_logits(self, x):
        return self.out(x)


def tokens_of(captions):
    return clip_tokenizer()(captions, context_length=6)  # [B, 6]


def test_teacher_forcing_and_the_loss_component():
    head = TinyHead().eval()
    memory, tokens = torch.randn(4, 3, H), tokens_of(CAPTIONS)
    logits = head(memory, tokens)
    assert logits.shape == (4, 5, len(head.vocab))
    compact = head.vocab.to_compact(tokens)
    assert_close(logits, head.decode_step(compact[:, :-1],
                                          head.cross_kv(memory)))
    shifted = head(memory, tokens, shift=torch.ones(H))  # inputs go to encode
    assert_close(shifted, head(memory + 1, tokens))
    out = head.loss(memory, tokens)
    assert head.loss_module.ignore_index == head.vocab.pad_id
    assert torch.equal(out['loss_caption'],
                       head.loss_module(logits.float(), compact[:, 1:]))
    paired = TinyHead(loss=dict(type='PairedSceneCrossEntropyLoss'))
    with pytest.raises(ValueError, match='even batch'):
        paired.loss(memory[:3], tokens[:3])
    with pytest.raises(ValueError, match='exceeds max_length'):
        head(memory, clip_tokenizer()(CAPTIONS, context_length=8))


def test_a_batch_is_converted_to_compact_ids_once(monkeypatch):
    """loss() reads the vocabulary's lookup once per batch (teacher forcing
    and targets share the compact ids)."""
    head = TinyHead().eval()
    calls = []
    to_compact = head.vocab.to_compact
    monkeypatch.setattr(head.vocab, 'to_compact',
                        lambda ids: calls.append(ids.shape) or to_compact(ids))
    memory, tokens = torch.randn(4, 3, H), tokens_of(CAPTIONS)
    out = head.loss(memory, tokens)
    assert calls == [tokens.shape]
    assert torch.equal(out['loss_caption'],
                       head.loss_from_logits(head(memory, tokens), tokens)['loss_caption'])


@pytest.mark.parametrize('repeat', [1, 3])
def test_cached_steps_equal_the_whole_prefix(repeat):
    head = TinyHead().eval()
    memory = torch.randn(2, 3, H)
    tokens, cross_kv, caches = head.start_decoding(memory, repeat, True,
                                                   shift=torch.ones(H))
    assert tokens.shape == (2 * repeat, 1) and len(caches) == 1
    _, _, none = head.start_decoding(memory, repeat, False)
    assert none is None
    for word in (5, 7, 4):
        cached = head.next_logits(tokens, cross_kv, caches)  # [N, V]
        assert_close(cached, head.next_logits(tokens, cross_kv, None))
        tokens = torch.cat([tokens, torch.full_like(tokens[:, :1], word)], 1)
    assert caches[0]['k'].shape[2] == 3  # three positions cached


def test_a_head_must_provide_its_architecture():
    with pytest.raises(ValueError, match='max_length'):
        BaseCaptionHead(max_length=1, vocab=CAPTIONS,
                        loss=dict(type='CaptionCrossEntropyLoss'))
    bare = BaseCaptionHead(max_length=4, vocab=CAPTIONS,
                           loss=dict(type='CaptionCrossEntropyLoss'))
    for call in (lambda: bare.encode(torch.zeros(1, 1, H)),
                 lambda: bare.cross_kv(None),
                 lambda: bare.embed_tokens(torch.zeros(1, 1, dtype=torch.long)),
                 lambda: bare.output_logits(torch.zeros(1, 1, H))):
        with pytest.raises(NotImplementedError):
            call()
