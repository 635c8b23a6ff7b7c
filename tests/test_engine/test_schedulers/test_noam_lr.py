"""NoamLR: the published IDC-PCL pre-training schedule, per iteration."""
import math

import pytest
import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import init_default_scope
from torch import nn

import mmidc  # noqa: F401
from mmidc.registry import PARAM_SCHEDULERS


def test_lr_of_each_iteration_by_hand():
    init_default_scope('mmidc')
    param = nn.Parameter(torch.zeros(1))
    wrapper = OptimWrapper(torch.optim.SGD([param], lr=1e-4))
    scheduler = PARAM_SCHEDULERS.build(dict(type='NoamLR', optimizer=wrapper,
                                            warmup=4))
    lrs = []
    for _ in range(9):
        lrs.append(wrapper.optimizer.param_groups[0]['lr'])
        wrapper.step()
        scheduler.step()
    # global step 1..9 of the published loop: step / 4, then sqrt(4 / step)
    expected = [1e-4 * s / 4 for s in (1, 2, 3, 4)] + \
        [1e-4 * math.sqrt(4 / s) for s in (5, 6, 7, 8, 9)]
    assert lrs == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError, match='warmup'):
        PARAM_SCHEDULERS.build(dict(type='NoamLR', optimizer=wrapper, warmup=0))
