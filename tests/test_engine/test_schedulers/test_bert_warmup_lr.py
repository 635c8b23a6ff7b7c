"""BertWarmupLR: BERT's warmup-cosine and warmup-linear, per iteration."""
import math

import pytest
import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import init_default_scope
from torch import nn

import mmidc  # noqa: F401
from mmidc.engine import bert_warmup_factor
from mmidc.registry import PARAM_SCHEDULERS


def lrs_over_run(schedule, total, epoch_length=None, base_lr=2.0):
    """The lr of every iteration of a run of ``total`` iterations."""
    init_default_scope('mmidc')
    param = nn.Parameter(torch.zeros(1))
    wrapper = OptimWrapper(torch.optim.SGD([param], lr=base_lr))
    cfg = dict(type='BertWarmupLR', optimizer=wrapper, schedule=schedule,
               warmup=0.1)
    if epoch_length:  # an epoch-based config converted to iterations
        cfg.update(by_epoch=True, begin=0, end=total // epoch_length,
                   convert_to_iter_based=True, epoch_length=epoch_length)
    else:
        cfg.update(by_epoch=False, begin=0, end=total)
    scheduler = PARAM_SCHEDULERS.build(cfg)
    lrs = []
    for _ in range(total):
        lrs.append(wrapper.optimizer.param_groups[0]['lr'])
        wrapper.step()
        scheduler.step()
    return lrs


def test_factor_by_hand():
    # warmup: linear from 0
    assert bert_warmup_factor(0.0, 0.1, 'warmup_cosine') == 0.0
    assert bert_warmup_factor(0.05, 0.1, 'warmup_linear') == pytest.approx(
        0.5)
    # cosine of the whole run's progress, not restarted after the warmup
    assert bert_warmup_factor(0.1, 0.1, 'warmup_cosine') == pytest.approx(
        0.5 * (1 + math.cos(0.1 * math.pi)))  # 0.9755
    assert bert_warmup_factor(0.5, 0.1, 'warmup_cosine') == pytest.approx(
        0.5)
    # linear from 1 at the end of the warmup to 0 at the end
    assert bert_warmup_factor(0.1, 0.1, 'warmup_linear') == pytest.approx(
        1.0)
    assert bert_warmup_factor(0.55, 0.1, 'warmup_linear') == pytest.approx(
        0.5)
    assert bert_warmup_factor(1.5, 0.1, 'warmup_linear') == 0.0
    assert bert_warmup_factor(0.7, 0.1, 'warmup_constant') == 1.0


@pytest.mark.parametrize('schedule', ['warmup_cosine', 'warmup_linear'])
def test_iteration_k_of_T_uses_factor_k_over_T(schedule):
    lrs = lrs_over_run(schedule, total=20)
    assert lrs[0] == 0.0  # the reference's first step has lr 0 too
    assert lrs[1] == pytest.approx(2.0 * 0.5)  # 1/20 of a 2/20 warmup
    for k, lr in enumerate(lrs):
        assert lr == pytest.approx(
            2.0 * bert_warmup_factor(k / 20, 0.1, schedule)), k


def test_epochs_convert_to_iterations():
    """end=5 epochs of 4 iterations: the same lrs as end=20 iterations."""
    assert lrs_over_run('warmup_cosine', total=20, epoch_length=4) == \
        pytest.approx(lrs_over_run('warmup_cosine', total=20))


def test_bad_arguments():
    wrapper = OptimWrapper(torch.optim.SGD([nn.Parameter(torch.zeros(1))],
                                           lr=1.0))
    from mmidc.engine import BertWarmupLR
    with pytest.raises(ValueError, match='schedule'):
        BertWarmupLR(wrapper, schedule='cosine', end=10)
    with pytest.raises(ValueError, match='warmup'):
        BertWarmupLR(wrapper, warmup=1.0, end=10)
    with pytest.raises(ValueError, match='end'):
        BertWarmupLR(wrapper)
