from collections import Counter

import pytest
import torch
from mmengine.logging import MessageHub
from mmengine.optim import OptimWrapper

from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import tiny_batch, tiny_model_cfg


def build(**kwargs):
    return MODELS.build(tiny_model_cfg('IDCPCLPretrainer', **kwargs))


def grads_of(model, prefix):
    return [p.grad for n, p in model.named_parameters() if n.startswith(prefix)]


@pytest.mark.parametrize('task,loss_key', [('mlm', 'loss_mlm'), ('mvcl', 'loss_mvcl'),
                                           ('fda', 'loss_fda')])
def test_each_task_trains_the_trunk(task, loss_key):
    model = build()
    data = model.data_preprocessor(tiny_batch(), True)
    losses = model.loss(data['inputs'], data['data_samples'], task=task)
    assert torch.isfinite(losses[loss_key])
    losses[loss_key].backward()
    for prefix in ('feature_encoder', 'token_embedding', 'single_image_encoder',
                   'pair_encoder', 'cross_modal.transformer'):
        assert any(g is not None and g.abs().sum() > 0 for g in grads_of(model, prefix)), prefix
    mvcl_grads = grads_of(model, 'mvcl_head')
    assert any(g is not None for g in mvcl_grads) == (task == 'mvcl')


def test_without_the_difference_encoder():
    model = build(single_image_encoder=None, pair_encoder=None)
    assert model.single_image_encoder is None and model.pair_encoder is None
    data = model.data_preprocessor(tiny_batch(), True)
    for task in ('mlm', 'mvcl', 'fda'):
        loss = model.loss(data['inputs'], data['data_samples'], task=task)
        assert all(torch.isfinite(v) for v in loss.values())


def test_task_draw_is_seeded_and_follows_the_weights():
    # a message hub of no runner: the draw follows the model's own step count
    MessageHub.get_instance('test_task_draw')
    model = build(task_weights=dict(mlm=8, mvcl=1, fda=2))
    first = [model.next_task() for _ in range(1100)]
    model._steps = 0
    assert [model.next_task() for _ in range(1100)] == first
    counts = Counter(first)
    assert 700 < counts['mlm'] < 900 and 60 < counts['mvcl'] < 150 and 140 < counts['fda'] < 260
    # in a runner the draw follows the iteration (resumed runs, every rank)
    hub = MessageHub.get_instance('test_task_draw_runner')
    by_iter = []
    for it in range(30):
        hub.update_info('iter', it)
        by_iter.append(model.next_task())
    other = build(task_weights=dict(mlm=8, mvcl=1, fda=2))
    hub.update_info('iter', 17)
    assert other.next_task() == by_iter[17]
    only_mlm = build(task_weights=dict(mlm=1))
    assert {only_mlm.next_task() for _ in range(20)} == {'mlm'}
    with pytest.raises(KeyError, match='unknown tasks'):
        build(task_weights=dict(mlm=1, itm=1))


def test_fda_needs_hard_negatives_and_train_step_works():
    model = build(task_weights=dict(fda=1))
    batch = tiny_batch()
    for ds in batch['data_samples']:
        del ds.negative_captions
    with pytest.raises(KeyError, match='SampleHardNegatives'):
        model.train_step(batch, OptimWrapper(torch.optim.AdamW(model.parameters())))
    optim = OptimWrapper(torch.optim.AdamW(model.parameters(), lr=1e-3))
    losses = model.train_step(tiny_batch(), optim)
    assert set(losses) == {'loss', 'loss_fda', 'fda_accuracy'}
    with pytest.raises(ValueError, match='mode'):
        model(torch.zeros(1), mode='predict')


SIX = ['the red cube changed to blue', 'there is no change',
       'the small sphere has been added', 'the cylinder moved',
       'the green ball is gone', 'the big block turned metal']


def sequences_read(model, data, **kwargs):
    """The number of sequences the cross-modal transformer reads in one
    ``fda`` loss, and the loss."""
    seen = []
    handle = model.cross_modal.register_forward_hook(
        lambda m, args, out: seen.append(out.shape[0]))
    loss = model.loss(data['inputs'], data['data_samples'], task='fda')
    handle.remove()
    return seen, loss


def test_fda_batch_layout():
    torch.manual_seed(0)
    full = build()  # the paper: every pair of the batch
    split = build(fda_loss=dict(type='SplitBatchDifferenceAlignmentLoss'))
    split.load_state_dict(full.state_dict())
    split.eval(), full.eval()
    data = split.data_preprocessor(tiny_batch(SIX, negatives=2), True)
    # B = 6 pairs, K = 2: B / (1 + K) = 2 pairs with their 2 negatives each
    seen, loss = sequences_read(split, data)
    assert seen == [6]
    seen_full, _ = sequences_read(full, data)
    assert seen_full == [18]  # B (1 + K)
    # the split step is the full step of its first B / (1 + K) pairs
    first_two = dict(inputs=data['inputs'][:2], data_samples=data['data_samples'][:2])
    _, loss_first = sequences_read(full, first_two)
    assert loss['loss_fda'].item() == pytest.approx(loss_first['loss_fda'].item(), rel=1e-5)
    # fewer pairs than 1 + K: still one pair
    one = dict(inputs=data['inputs'][:2], data_samples=data['data_samples'][:2])
    assert sequences_read(split, one)[0] == [3]


@pytest.mark.parametrize('loss_type', ['MaskedVisualContrastiveLoss',
                                       'PredictedNegativeVisualContrastiveLoss'])
def test_mvcl_negatives(loss_type):
    torch.manual_seed(0)
    model = build(mvcl_loss=dict(type=loss_type, exclude_counterpart=True))
    calls, inner = [], model.mvcl_loss.forward
    model.mvcl_loss.forward = lambda *args: calls.append(args) or inner(*args)
    data = model.data_preprocessor(tiny_batch(), True)
    feats = model.extract_feat(data['inputs']).detach()  # [B, 2, N, C]
    model.extract_feat = lambda inputs: feats
    out = model.loss(data['inputs'], data['data_samples'], task='mvcl')
    assert 0.0 <= out['mvcl_accuracy'] <= 1.0
    predictions, targets, negs, excluded = calls[0]
    B, _, N, C = feats.shape
    M = predictions.shape[0]
    assert negs.shape == (2 * B * N - M, C) and excluded.shape == (M, negs.shape[0])
    # targets: the original features at the masked positions
    rows = feats.flatten(0, 2)
    assert all((rows == t).all(-1).any() for t in targets)
    if loss_type == 'MaskedVisualContrastiveLoss':  # the original features
        assert not negs.requires_grad
        assert all((rows == n).all(-1).any() for n in negs)
    else:  # the regressor's outputs: trained through
        assert negs.requires_grad
        assert not any((rows == n).all(-1).any() for n in negs)
    # each masked position leaves out exactly its counterpart: the same
    # grid position of the other image
    assert (excluded.sum(1) == 1).all()
    if loss_type == 'MaskedVisualContrastiveLoss':
        for t, row in zip(targets, excluded):
            b, i, n = [int(x) for x in (feats == t).all(-1).nonzero()[0]]
            assert torch.equal(negs[row.nonzero()[0, 0]], feats[b, 1 - i, n])


def test_defaults_are_the_papers_losses():
    model = build()
    assert type(model.mvcl_loss).__name__ == 'MaskedVisualContrastiveLoss'
    assert type(model.fda_loss).__name__ == 'DifferenceAlignmentLoss'


def test_tied_mvcl_head_shares_the_feature_projection():
    torch.manual_seed(0)
    model = build(mvcl_head=dict(type='FeatureRegressionHead', tied=True))
    head, proj = model.mvcl_head, model.token_embedding.proj
    assert head.weight is proj.weight
    x = torch.randn(5, 32)
    expected = head.net(x) @ proj.weight + head.bias  # [5, C] by hand
    assert torch.allclose(head(x), expected, atol=1e-6)
    data = model.data_preprocessor(tiny_batch(), True)
    model.loss(data['inputs'], data['data_samples'], task='mvcl')['loss_mvcl'].backward()
    assert proj.weight.grad is not None and head.bias.grad is not None
    # one copy in the optimizer
    assert sum(p is proj.weight for p in model.parameters()) == 1
    untied = build(mvcl_head=dict(type='FeatureRegressionHead'))
    assert untied.mvcl_head.out.weight.shape == (proj.in_features, 32)
