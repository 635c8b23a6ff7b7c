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
