import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from mmidc.text import EOT_ID, SOT_ID, clip_tokenizer
from mmidc.registry import MODELS

V = 49408  # the full CLIP vocabulary: compact ids are CLIP ids


def tokens_of(captions, length=16):
    return clip_tokenizer()(captions, context_length=length)  # [N, length]


def counts_head(**kwargs):
    return MODELS.build(dict(type='BagOfWordCountsHead', in_channels=3 * 8,
                             num_classes=V, **kwargs))


def word_ids(*words):
    return clip_tokenizer()(list(words), context_length=3)[:, 1].tolist()


def test_targets_are_the_share_of_references_with_at_least_k():
    head = counts_head(max_count=3)
    refs = [['the cube behind the red cube moved', 'the cube moved',
             'the the the cube', 'cube']]
    soft = head.targets([tokens_of(r) for r in refs])[0]  # [K, V]
    assert soft.shape == (3, V)
    the, cube, red = word_ids('the', 'cube', 'red')
    # "the": 2, 1, 3, 0 times; "cube": 2, 1, 1, 1; "red": 1, 0, 0, 0
    assert_close(soft[:, the], torch.tensor([0.75, 0.5, 0.25]))
    assert_close(soft[:, cube], torch.tensor([1.0, 0.25, 0.0]))
    assert_close(soft[:, red], torch.tensor([0.25, 0.0, 0.0]))
    assert_close(soft[:, EOT_ID], torch.tensor([1.0, 0.0, 0.0]))
    assert soft[:, SOT_ID].sum() == 0 and soft[:, 0].sum() == 0


def test_one_count_is_the_bag_of_words_target():
    refs = [tokens_of(['the cube moved', 'the red cube moved']),
            tokens_of(['there is no change'])]
    bow = MODELS.build(dict(type='BagOfWordsHead', in_channels=24, num_classes=V))
    assert_close(counts_head(max_count=1).targets(refs)[:, 0], bow.targets(refs))


def test_bad_max_count_is_named():
    with pytest.raises(ValueError, match='max_count'):
        counts_head(max_count=0)


def test_loss_prior_and_training(words_fit):
    head = counts_head(max_count=2, loss_weight=2.0, word_prior=True)
    summary = torch.randn(2, 3, 8, requires_grad=True)  # [B, E, D]
    refs = [tokens_of(['the cube behind the sphere moved', 'the cube moved']),
            tokens_of(['there is no change'])]
    logits = head(summary)
    assert logits.shape == (2, 2, V)
    assert_close(logits.flatten(1), summary.flatten(1) @ head.fc.weight.t() + head.fc.bias)
    loss = head.loss(logits, refs)['loss_words']
    assert_close(loss, 2.0 * F.binary_cross_entropy_with_logits(
        logits, head.targets(refs)))
    assert_close(head.logit_bias(logits), F.logsigmoid(logits))  # [B, K, V]
    loss.backward()
    assert summary.grad.abs().sum() > 0
    # a few steps on one batch fit how often each word occurs
    summary = summary.detach()
    first, last = words_fit(head, summary, refs)
    assert last < 0.5 * first
