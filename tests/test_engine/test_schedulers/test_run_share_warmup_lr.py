"""RunShareWarmupLR: a linear warm-up over a share of the run."""
import pytest
import torch
from mmengine.optim.scheduler import LinearLR

from mmidc.engine.schedulers import RunShareWarmupLR, warmup_steps


def optimizer(lr=1.0):
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)


def rates(scheduler, opt, steps):
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[0]['lr'])
        scheduler.step()
    return out


@pytest.mark.parametrize('run, expected', [
    (2, 0), (10, 0), (39, 0), (40, 2), (100, 5), (1000, 50), (10**6, 50)])
def test_warmup_steps(run, expected):
    assert warmup_steps(run, share=0.05, max_steps=50) == expected


def test_long_run_is_the_fixed_linear_warmup():
    a, b = optimizer(), optimizer()
    share = RunShareWarmupLR(a, start_factor=0.02, share=0.05, max_steps=50,
                             begin=0, end=1500, by_epoch=False)
    fixed = LinearLR(b, start_factor=0.02, begin=0, end=50, by_epoch=False)
    assert rates(share, a, 120) == rates(fixed, b, 120)


def test_short_run_warms_up_over_its_share():
    opt = optimizer()
    sched = RunShareWarmupLR(opt, share=0.1, max_steps=50, begin=0, end=40,
                             by_epoch=False)
    lrs = rates(sched, opt, 40)
    assert sched.warmup == 4
    assert lrs[0] == pytest.approx(0.02)
    assert lrs[3] == pytest.approx(1.0) and lrs[-1] == pytest.approx(1.0)
    assert lrs[0] < lrs[1] < lrs[2] < lrs[3]


def test_very_short_run_does_not_warm_up():
    opt = optimizer()
    sched = RunShareWarmupLR(opt, begin=0, end=10, by_epoch=False)
    assert sched.warmup == 0
    assert rates(sched, opt, 10) == [1.0] * 10


def test_epochs_converted_to_iterations():
    opt = optimizer()
    sched = RunShareWarmupLR.build_iter_from_epoch(
        opt, share=0.1, max_steps=50, begin=0, end=5, by_epoch=True,
        epoch_length=20)
    assert not sched.by_epoch and sched.warmup == 10


@pytest.mark.parametrize('kwargs, word', [
    (dict(share=0.0, end=10), 'share'), (dict(share=1.5, end=10), 'share'),
    (dict(max_steps=-1, end=10), 'max_steps'), (dict(), 'end')])
def test_bad_arguments_are_named(kwargs, word):
    with pytest.raises(ValueError, match=word):
        RunShareWarmupLR(optimizer(), by_epoch=False, **kwargs)
