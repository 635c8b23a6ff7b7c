import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from mmidc.text import EOT_ID, SOT_ID, clip_tokenizer
from mmidc.registry import MODELS

V = 49408  # the full CLIP vocabulary: compact ids are CLIP ids


def tokens_of(captions, length=12):
    return clip_tokenizer()(captions, context_length=length)  # [N, length]


def bow_head(**kwargs):
    return MODELS.build(dict(type='BagOfWordsHead', in_channels=3 * 8,
                             num_classes=V, **kwargs))


def test_targets_of_one_caption_are_its_words_without_start_and_padding():
    head = bow_head()
    hot = head.targets([tokens_of(['the cube moved']),
                        tokens_of(['the the cube'])])  # [2, V]
    words = clip_tokenizer()(['the', 'cube', 'moved'], context_length=3)[:, 1]
    assert hot[0].nonzero().flatten().tolist() == sorted([*words.tolist(), EOT_ID])
    assert hot[1].nonzero().flatten().tolist() == sorted([*words[:2].tolist(), EOT_ID])
    assert hot[:, SOT_ID].sum() == 0 and hot[:, 0].sum() == 0


def test_targets_are_the_fraction_of_references_with_the_word():
    head = bow_head()
    refs = [['the cube moved', 'the red cube moved', 'the cube is gone', 'cube'],
            ['there is no change']]
    soft = head.targets([tokens_of(r) for r in refs])  # [2, V]
    the, cube, moved, red = clip_tokenizer()(
        ['the', 'cube', 'moved', 'red'], context_length=3)[:, 1].tolist()
    assert_close(soft[0, [cube, the, moved, red, EOT_ID]],
                 torch.tensor([1.0, 0.75, 0.5, 0.25, 1.0]))
    assert_close(soft[1], head.targets([tokens_of(refs[1])])[0])


def test_loss_is_weighted_bce_and_trains(words_fit):
    with pytest.raises(ValueError, match='loss_weight'):
        bow_head(loss_weight=-1.0)
    head = bow_head(loss_weight=2.0)
    summary = torch.randn(2, 3, 8, requires_grad=True)  # [B, E, D]
    refs = [tokens_of(['the cube moved', 'a cube moved']),
            tokens_of(['there is no change'])]
    logits = head(summary)
    assert logits.shape == (2, V)
    assert_close(logits, summary.flatten(1) @ head.fc.weight.t() + head.fc.bias)
    loss = head.loss(logits, refs)['loss_words']
    assert_close(loss, 2.0 * F.binary_cross_entropy_with_logits(
        logits, head.targets(refs)))
    loss.backward()
    assert summary.grad.abs().sum() > 0
    # a few steps on one batch fit the words of its captions
    summary = summary.detach()
    first, last = words_fit(head, summary, refs)
    assert last < 0.5 * first


def test_word_prior_is_the_scaled_log_belief():
    assert bow_head().logit_bias(torch.randn(2, V)) is None
    head = bow_head(word_prior=True)
    logits = torch.randn(2, V)
    assert_close(head.logit_bias(logits), F.logsigmoid(logits))
    with torch.no_grad():
        head.prior_scale.fill_(0.5)
    assert_close(head.logit_bias(logits), 0.5 * F.logsigmoid(logits))
