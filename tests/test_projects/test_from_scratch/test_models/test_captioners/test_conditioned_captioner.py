"""projects.from_scratch ConditionedCaptioner: CLIP4IDC's captioner with
the recipe's summary tokens, auxiliary head and word prior."""
import pytest
import torch
import torch.nn.functional as F
from mmpretrain.structures import DataSample

from mmidc.models import CLIP4IDCCaptioner
from mmidc.registry import MODELS
from mmidc.text import clip_tokenizer
from projects.from_scratch.models.processors import CountedWordPrior, WordPrior

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added to the scene', 'the cylinder moved']


def captioner(tiny_arch, **kwargs):
    cfg = dict(
        type='ConditionedCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
        head=dict(type='ScratchCaptionHead', hidden=64, num_heads=4,
                  num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                  max_length=16, vocab=CAPTIONS))
    cfg.update(kwargs)
    return MODELS.build(cfg)


def with_summary_parts(tiny_arch, aux_head='BagOfWordsHead', word_prior=True):
    return captioner(
        tiny_arch,
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=1,
                      extra_segments=[dict(type='DifferenceSegment')]),
        neck=dict(type='ChangeSummaryNeck', change_tokens=2),
        aux_head=dict(type=aux_head, loss_weight=3.0, word_prior=word_prior))


def batch(captions=CAPTIONS, size=32, references=False):
    g = torch.Generator().manual_seed(1)
    tokens = clip_tokenizer()(captions, context_length=16)  # [N, 16]
    inputs = [torch.randint(0, 256, (2, 3, size, size), generator=g, dtype=torch.uint8)
              for _ in captions]
    samples = []
    for i, t in enumerate(tokens):
        samples.append(DataSample(metainfo=dict(pair_id=str(i))))
        samples[-1].set_field(t, 'text_tokens')
        if references:
            refs = clip_tokenizer()([captions[i], 'there is no change'],
                                    context_length=16)
            samples[-1].set_field(refs, 'ref_tokens')
    return dict(inputs=inputs, data_samples=samples)


def test_is_the_core_captioner_with_the_heads_layout(tiny_arch):
    """Without a neck: CLIP4IDC's captioner, the head given the backbone's
    layout (width, token count, segments) and no extra tokens."""
    model = captioner(tiny_arch)
    assert isinstance(model, CLIP4IDCCaptioner)
    assert model.neck is None and model.aux_head is None
    assert model.head.memory_dim == 64
    assert model.head.max_memory_tokens == 2 * (4 * 4 + 1)
    assert model.head.num_segments == 2 and model.head.num_extra_tokens == 0
    data = model.data_preprocessor(batch(), False)
    assert model(**data, mode='tensor').shape == (4, 15, len(model.head.vocab))
    assert set(model(**data, mode='loss')) == {'loss_caption', 'accuracy'}
    assert model.decoder_inputs(data['inputs'])[1] == {}
    # a layout argument given in the config wins
    assert captioner(tiny_arch, head=dict(
        type='ScratchCaptionHead', hidden=32, num_heads=2, num_encoder_layers=1,
        num_decoder_layers=1, max_memory_tokens=40)).head.max_memory_tokens == 40


def test_extra_segments_reach_the_head_as_more_segments(tiny_arch):
    model = captioner(
        tiny_arch,
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=1,
                      patch_embed=dict(type='ConvStem', channels=(8, 16)),
                      extra_segments=[dict(type='DifferenceSegment')]))
    assert model.head.num_segments == 3
    assert model.head.max_memory_tokens == 3 * 17
    assert model.head.segment_embed.shape == (3, 64)
    memory = model.extract_feat(torch.randn(2, 2, 3, 32, 32))
    assert memory.shape == (2, 51, 64)
    assert model.head.greedy_decode(memory, max_length=5).tokens.shape[0] == 2


def test_neck_and_aux_head_condition_the_caption_head(tiny_arch):
    model = with_summary_parts(tiny_arch)
    # wired from the backbone and the caption head's vocabulary, built in
    # the order backbone, neck, head, auxiliary head (checkpoint names too)
    assert [name for name, _ in model.named_children()][-4:] == [
        'backbone', 'neck', 'head', 'aux_head']
    assert model.neck.segments == ('before', 'after', 'diff')
    assert model.head.num_extra_tokens == 3 + 4
    assert model.aux_head.fc.in_features == 7 * 64
    assert model.aux_head.num_classes == len(model.head.vocab)
    data = model.data_preprocessor(batch(), True)
    with pytest.raises(KeyError, match="key='ref_tokens'"):
        model(**data, mode='loss')  # no ref_tokens in the samples
    data = model.data_preprocessor(batch(references=True), True)
    losses = model(**data, mode='loss')
    memory = model.extract_feat(data['inputs'])
    summary = model.neck(memory)
    word_logits = model.aux_head(summary)
    compact = [model.head.vocab.to_compact(ds.ref_tokens) for ds in data['data_samples']]
    torch.testing.assert_close(losses['loss_words'], 3.0 * F.binary_cross_entropy_with_logits(
        word_logits, model.aux_head.targets(compact)))
    text = torch.stack([ds.text_tokens for ds in data['data_samples']])
    bias = model.aux_head.logit_bias(word_logits)
    torch.testing.assert_close(losses['loss_caption'], model.head.loss(
        memory, text, extra_tokens=summary, logit_bias=bias)['loss_caption'])
    torch.testing.assert_close(model(**data, mode='tensor'), model.head(
        memory, text, extra_tokens=summary, logit_bias=bias))
    # the caption loss trains the neck and the aux head through the prior
    model.zero_grad()
    losses['loss_caption'].backward()
    assert model.aux_head.prior_scale.grad is not None
    assert model.aux_head.fc.weight.grad.abs().sum() > 0
    assert model.neck.change_score.weight.grad.abs().sum() > 0
    # decoding: the summary tokens and the prior as a logits processor
    model.eval()
    memory, kwargs = model.decoder_inputs(data['inputs'])
    prior, = kwargs['logits_processors']
    assert isinstance(prior, WordPrior)
    torch.testing.assert_close(prior.bias, model.aux_head.logit_bias(word_logits))
    for options in (dict(), dict(strategy='beam', beam_size=3)):
        out = model.generate(data['inputs'], **options)
        run = (model.head.greedy_decode if not options else
               lambda *a, **kw: model.head.beam_search(*a, beam_size=3, **kw))
        expected = run(memory, extra_tokens=summary,
                       logits_processors=[WordPrior(model.aux_head.logit_bias(word_logits))])
        assert torch.equal(out.tokens, expected.tokens)
        assert torch.equal(out.score, expected.score)
        # and the prior matters: without it the search scores differently
        plain = run(memory, extra_tokens=summary)
        assert not torch.equal(plain.score, expected.score)


def test_a_counted_head_gives_a_counted_prior(tiny_arch):
    model = with_summary_parts(tiny_arch, 'BagOfWordCountsHead').eval()
    data = model.data_preprocessor(batch(), False)
    _, kwargs = model.decoder_inputs(data['inputs'])
    prior, = kwargs['logits_processors']
    assert isinstance(prior, CountedWordPrior) and prior.bias.dim() == 3
    # without its word prior, no processor
    model = with_summary_parts(tiny_arch, word_prior=False).eval()
    _, kwargs = model.decoder_inputs(data['inputs'])
    assert set(kwargs) == {'extra_tokens'}


def test_aux_head_needs_a_neck(tiny_arch):
    with pytest.raises(ValueError, match='set a neck'):
        captioner(tiny_arch, aux_head=dict(type='BagOfWordsHead'))


PLAIN_HEAD = dict(type='TransformerCaptionHead', hidden=64, num_heads=4,
                  num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                  max_length=16, vocab=CAPTIONS)


def test_a_plain_head_gets_only_what_it_declares(tiny_arch):
    """A head without the recipe's layout arguments builds and trains: the
    captioner passes only those its class names."""
    model = captioner(tiny_arch, head=PLAIN_HEAD)
    assert type(model.head).__name__ == 'TransformerCaptionHead'
    data = model.data_preprocessor(batch(), True)
    assert set(model(**data, mode='loss')) == {'loss_caption', 'accuracy'}


def test_a_swapped_head_does_not_keep_the_recipes_parts_silently(tiny_arch):
    """A head that cannot read the neck's summary tokens or the word prior
    stops the build naming what to drop; the build logs what it composes."""
    with pytest.raises(TypeError, match=r'model\.neck=None and model\.aux_head=None'):
        with_summary_parts(tiny_arch).__class__(
            backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
            head=PLAIN_HEAD, neck=dict(type='ChangeSummaryNeck'))
    model = with_summary_parts(tiny_arch)
    assert model.composition() == (
        'backbone CLIP4IDCBackbone, neck ChangeSummaryNeck, head '
        'ScratchCaptionHead, aux_head BagOfWordsHead (its loss and its word '
        "prior on the head's logits)")
    assert with_summary_parts(tiny_arch, word_prior=False).composition().endswith(
        'aux_head BagOfWordsHead (its loss)')
    assert captioner(tiny_arch).composition().endswith('neck none, head '
                                                       'ScratchCaptionHead, aux_head none')


def test_a_head_without_logit_bias_refuses_the_word_prior(tiny_arch):
    from projects.from_scratch.models.heads import ScratchCaptionHead

    class NoBiasHead(ScratchCaptionHead):  # reads the summary tokens only
        def teacher_logits(self, memory, tokens, extra_tokens=None):
            return super().teacher_logits(memory, tokens, extra_tokens=extra_tokens)

    def build(word_prior):
        return captioner(
            tiny_arch, neck=dict(type='ChangeSummaryNeck'),
            aux_head=dict(type='BagOfWordsHead', word_prior=word_prior),
            head=dict(type=NoBiasHead, hidden=32, num_heads=2, num_encoder_layers=1,
                      num_decoder_layers=1, max_length=16, vocab=CAPTIONS))

    with pytest.raises(TypeError, match=r'takes no logit_bias: set model\.aux_head=None'):
        build(word_prior=True)
    assert build(word_prior=False).composition().endswith('aux_head BagOfWordsHead (its loss)')
