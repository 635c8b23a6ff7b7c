"""BertAdam against a hand computation of two steps."""
import math

import pytest
import torch
from torch import nn

from mmidc.engine import BertAdam
from mmidc.registry import OPTIMIZERS


def hand_bert_adam(p, grads, lr, beta1, beta2, eps, wd, max_norm):
    """BertAdam on a list of floats, written out step by step."""
    p, m, v = list(p), [0.0] * len(p), [0.0] * len(p)
    for g in grads:
        norm = math.sqrt(sum(x * x for x in g))
        coef = min(1.0, max_norm / (norm + 1e-6))
        g = [x * coef for x in g]
        m = [beta1 * mi + (1 - beta1) * gi for mi, gi in zip(m, g)]
        v = [beta2 * vi + (1 - beta2) * gi * gi for vi, gi in zip(v, g)]
        p = [pi - lr * (mi / (math.sqrt(vi) + eps) + wd * pi)
             for pi, mi, vi in zip(p, m, v)]
    return p


def run_steps(param, grads, **kwargs):
    opt = OPTIMIZERS.build(dict(type='BertAdam', params=[param], **kwargs))
    for g in grads:
        param.grad = torch.tensor(g, dtype=param.dtype)
        opt.step()
    return opt


def test_two_steps_match_hand_computation():
    # step 1: |g| = 0.5, not clipped; step 2: |g| = 5, clipped to norm 1
    grads = [[0.3, -0.4], [3.0, 4.0]]
    param = nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = run_steps(param, grads, lr=0.1, betas=(0.9, 0.98), eps=1e-6,
                    weight_decay=0.2, max_grad_norm=1.0)
    expected = hand_bert_adam([1.0, -2.0], grads, 0.1, 0.9, 0.98, 1e-6, 0.2,
                              1.0)
    assert param.tolist() == pytest.approx(expected, rel=1e-12)
    assert opt.state[param]['step'] == 2


def test_no_bias_correction():
    """The first step is (1 - beta1) / sqrt(1 - beta2) of Adam's sign step:
    m = 0.1 g, sqrt(v) = sqrt(0.02) |g|."""
    param = nn.Parameter(torch.tensor([0.0], dtype=torch.float64))
    run_steps(param, [[0.5]], lr=1.0, betas=(0.9, 0.98), eps=0.0,
              weight_decay=0.0, max_grad_norm=-1)
    assert param.item() == pytest.approx(-0.1 / math.sqrt(0.02))
    adam = nn.Parameter(torch.tensor([0.0], dtype=torch.float64))
    adam.grad = torch.tensor([0.5], dtype=torch.float64)
    torch.optim.Adam([adam], lr=1.0, betas=(0.9, 0.98), eps=0.0).step()
    assert adam.item() == pytest.approx(-1.0)  # bias-corrected: lr * sign


def test_clipping_is_per_parameter():
    """A huge gradient on one tensor does not shrink another's update (a
    global clip would)."""
    big = nn.Parameter(torch.zeros(2, dtype=torch.float64))
    small = nn.Parameter(torch.zeros(2, dtype=torch.float64))
    opt = BertAdam([big, small], lr=1.0, betas=(0.9, 0.999), eps=1e-6,
                   weight_decay=0.0, max_grad_norm=1.0)
    big.grad = torch.tensor([300.0, 400.0], dtype=torch.float64)
    small.grad = torch.tensor([0.03, 0.04], dtype=torch.float64)
    opt.step()
    expected_small = hand_bert_adam([0.0, 0.0], [[0.03, 0.04]], 1.0, 0.9,
                                    0.999, 1e-6, 0.0, 1.0)
    expected_big = hand_bert_adam([0.0, 0.0], [[300.0, 400.0]], 1.0, 0.9,
                                  0.999, 1e-6, 0.0, 1.0)
    assert small.tolist() == pytest.approx(expected_small, rel=1e-12)
    assert big.tolist() == pytest.approx(expected_big, rel=1e-12)


def test_groups_and_missing_grads():
    a = nn.Parameter(torch.ones(1, dtype=torch.float64))
    b = nn.Parameter(torch.ones(1, dtype=torch.float64))
    frozen = nn.Parameter(torch.ones(1, dtype=torch.float64))
    opt = BertAdam([dict(params=[a], lr=0.5, weight_decay=0.0),
                    dict(params=[b, frozen])], lr=0.1, weight_decay=0.2)
    a.grad = torch.ones(1, dtype=torch.float64)
    b.grad = torch.ones(1, dtype=torch.float64)
    opt.step()
    assert a.tolist() == pytest.approx(
        hand_bert_adam([1.0], [[1.0]], 0.5, 0.9, 0.999, 1e-6, 0.0, 1.0))
    assert b.tolist() == pytest.approx(
        hand_bert_adam([1.0], [[1.0]], 0.1, 0.9, 0.999, 1e-6, 0.2, 1.0))
    assert frozen.item() == 1.0 and frozen not in opt.state


@pytest.mark.parametrize('kwargs', [dict(lr=-1.0), dict(betas=(0.9, 1.0)),
                                    dict(eps=-1.0), dict(weight_decay=-0.1)])
def test_bad_arguments(kwargs):
    args = dict(lr=0.1, **kwargs) if 'lr' not in kwargs else kwargs
    with pytest.raises(ValueError, match='BertAdam'):
        BertAdam([nn.Parameter(torch.zeros(1))], **args)


def test_foreach_update_equals_the_loop():
    start = [torch.randn(s, dtype=torch.float64)
             for s in ((3, 4), (5,), (2, 2, 2))]
    runs = []
    for foreach in (False, True):
        params = [nn.Parameter(t.clone()) for t in start]
        opt = BertAdam([dict(params=params[:2]),
                        dict(params=params[2:], weight_decay=0.0)],
                       lr=0.01, betas=(0.9, 0.98), weight_decay=0.2,
                       foreach=foreach)
        gen = torch.Generator().manual_seed(1)
        for scale in (0.1, 10.0, 1.0):  # clipped and not
            for p in params:
                p.grad = scale * torch.randn(p.shape, generator=gen,
                                             dtype=torch.float64)
            opt.step()
        runs.append(params)
    for loop, foreach in zip(*runs):
        torch.testing.assert_close(foreach, loop, rtol=1e-12, atol=1e-15)


def test_foreach_groups_of_equal_settings_update_together(monkeypatch):
    """One foreach update per distinct setting (MMEngine's paramwise_cfg
    makes a group per parameter), with the same result as one update per
    group, bit for bit."""
    start = [torch.randn(s, dtype=torch.float32) for s in ((3, 4), (5,), (2, 2), (7,))]
    settings = [dict(), dict(weight_decay=0.0), dict(), dict(lr=0.1)]
    runs, calls = [], []
    real = BertAdam._foreach_update
    for bucketed in (True, False):
        params = [nn.Parameter(t.clone()) for t in start]
        opt = BertAdam([dict(params=[p], **kw) for p, kw in zip(params, settings)],
                       lr=0.01, betas=(0.9, 0.98), weight_decay=0.2, foreach=True)
        gen = torch.Generator().manual_seed(2)
        for scale in (0.1, 10.0):
            for p in params:
                p.grad = scale * torch.randn(p.shape, generator=gen)
            if bucketed:
                monkeypatch.setattr(BertAdam, '_foreach_update', lambda self, g, ps: (
                    calls.append(len(ps)), real(self, g, ps)))
                opt.step()
                monkeypatch.setattr(BertAdam, '_foreach_update', real)
            else:  # the reference: one foreach update per group
                for group in opt.param_groups:
                    for p in group['params']:
                        state = opt.state[p]
                        if not state:
                            state.update(step=0, exp_avg=torch.zeros_like(p),
                                         exp_avg_sq=torch.zeros_like(p))
                        state['step'] += 1
                    with torch.no_grad():
                        real(opt, group, group['params'])
        runs.append(params)
    assert calls == [2, 1, 1] * 2  # three settings, the first shared by two groups
    for bucketed, per_group in zip(*runs):
        assert torch.equal(bucketed, per_group)


@pytest.mark.parametrize('foreach', [False, True])
@pytest.mark.parametrize('settings', [
    dict(weight_decay=0.2, max_grad_norm=1.0), dict(weight_decay=0.0, max_grad_norm=1.0),
    dict(weight_decay=0.2, max_grad_norm=-1.0)])
def test_both_updates_are_the_reference_loop_bit_for_bit(foreach, settings):
    """The per-tensor loop (buffers reused) and the foreach update against
    the loop as first written (tests/helpers/reference_bert_adam.py): the
    same fp32 parameters and moments, bit for bit, after three steps of
    clipped and unclipped gradients, in two groups of different settings."""
    from tests.helpers.reference_bert_adam import ReferenceBertAdam
    gen = torch.Generator().manual_seed(3)
    start = [torch.randn(s, generator=gen) for s in ((3, 5), (7,), (2, 3, 4))]
    grads = [[scale * torch.randn(t.shape, generator=gen) for t in start]
             for scale in (0.1, 10.0, 1.0)]
    runs = []
    for cls, fe in ((ReferenceBertAdam, False), (BertAdam, foreach)):
        params = [nn.Parameter(t.clone()) for t in start]
        opt = cls([dict(params=params[:2]), dict(params=params[2:], lr=0.1)],
                  lr=0.01, betas=(0.9, 0.98), foreach=fe, **settings)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = g.clone()
            opt.step()
        runs.append((params, opt))
    (ref, ref_opt), (new, new_opt) = runs
    for a, b in zip(ref, new):
        assert torch.equal(a, b)
        for key in ('exp_avg', 'exp_avg_sq'):
            assert torch.equal(ref_opt.state[a][key], new_opt.state[b][key])


def test_loop_allocates_one_temporary_per_parameter():
    """The per-tensor loop computes the update in the clipped gradient's
    buffer: one new parameter-sized tensor per parameter and step (the
    reference loop makes four: clipped gradient, sqrt(v), denominator,
    update)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class NewTensors(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.sizes = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if not func._schema.is_mutable and torch.is_tensor(out):
                self.sizes.append(out.numel())
            return out

    params = [nn.Parameter(torch.randn(4, 6)) for _ in range(3)]
    opt = BertAdam(params, lr=0.1, foreach=False)
    for p in params:
        p.grad = torch.randn(4, 6)
    opt.step()  # the state's moments are allocated once, here
    with NewTensors() as mode:
        opt.step()
    assert mode.sizes.count(24) == 3


@pytest.mark.cuda
def test_foreach_on_cuda_matches_the_reference_loop():
    """On a GPU (where foreach is the default): the bucketed foreach update
    against the reference loop on the same device, fp32, three steps; to
    1e-6 relative (the GPU's multi-tensor kernels may contract a multiply
    and an add into one rounding where the one-tensor kernels do not)."""
    from tests.helpers.reference_bert_adam import ReferenceBertAdam
    gen = torch.Generator().manual_seed(4)
    start = [torch.randn(s, generator=gen) for s in ((64, 48), (48,), (3, 5, 7))]
    grads = [[scale * torch.randn(t.shape, generator=gen) for t in start]
             for scale in (0.01, 10.0, 1.0)]
    runs = []
    for cls, foreach in ((ReferenceBertAdam, False), (BertAdam, None)):
        params = [nn.Parameter(t.cuda()) for t in start]
        opt = cls([dict(params=[p], weight_decay=wd) for p, wd in
                   zip(params, (0.01, 0.0, 0.01))], lr=1e-3, foreach=foreach)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = g.cuda()
            opt.step()
        runs.append(params)
    for ref, new in zip(*runs):
        torch.testing.assert_close(new, ref, rtol=1e-6, atol=1e-9)
