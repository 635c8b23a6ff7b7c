import math
import os

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.testing import assert_close

from mmidc.models.heads import ContrastiveAdaptationHead
from mmidc.models.losses import MultiPositiveInfoNCELoss
from tests.helpers import free_port
from mmidc.registry import MODELS


def _tokens(*rows):
    return torch.tensor([list(r) + [0] * (4 - len(r)) for r in rows])


def test_matches_plain_infonce_without_duplicates():
    head = MODELS.build(dict(type='ContrastiveAdaptationHead'))
    pair, text = torch.randn(5, 16), torch.randn(5, 16)
    losses = head.loss(pair, text, _tokens(*[[i + 1] for i in range(5)]))
    logits = F.normalize(pair) @ F.normalize(text).t() / 0.07
    target = torch.arange(5)
    assert_close(losses['loss_p2t'], F.cross_entropy(logits, target))
    assert_close(losses['loss_t2p'], F.cross_entropy(logits.t(), target))
    assert_close(losses['logit_scale'], torch.tensor(1 / 0.07))


def test_the_loss_component_is_called_with_logits_and_tokens():
    """Duplicate captions: the paper's loss treats them as negatives, the
    multi-positive loss as positives; the head passes the tokens on."""
    pair, text = torch.randn(4, 8), torch.randn(4, 8)
    tokens = _tokens([5, 9], [5, 9], [7], [8])
    plain = ContrastiveAdaptationHead()
    multi = ContrastiveAdaptationHead(
        loss=dict(type='MultiPositiveInfoNCELoss', two_way_reduction='mean'))
    logits = plain.logits(pair, text)
    expected = MultiPositiveInfoNCELoss('mean')(logits, tokens)
    got = multi.loss(pair, text, tokens)
    assert set(got) == {'loss_p2t', 'loss_t2p', 'logit_scale'}
    for key in ('loss_p2t', 'loss_t2p'):
        assert_close(got[key], expected[key])
    assert not torch.allclose(plain.loss(pair, text, tokens)['loss_p2t'],
                              2 * got['loss_p2t'])


def test_scale_is_clamped_and_learnable():
    head = ContrastiveAdaptationHead()
    with torch.no_grad():
        head.logit_scale.fill_(10.0)
    losses = head.loss(torch.randn(3, 8), torch.randn(3, 8),
                       _tokens([1], [2], [3]))
    assert_close(losses['logit_scale'], torch.tensor(100.0))
    head.logit_scale.data.fill_(1.0)
    head.loss(torch.randn(3, 8), torch.randn(3, 8),
              _tokens([1], [2], [3]))['loss_p2t'].backward()
    assert head.logit_scale.grad is not None
    with pytest.raises(ValueError, match='exceeds'):
        ContrastiveAdaptationHead(init_logit_scale=5.0)


def _scale_grad(head, value):
    with torch.no_grad():
        head.logit_scale.fill_(value)
    head.logit_scale.grad = None
    pair = torch.tensor([[1., 0.], [0., 1.], [1., 1.]])
    text = torch.tensor([[1., .1], [.1, 1.], [1., .9]])
    losses = head.loss(pair, text, _tokens([1], [2], [3]))
    (losses['loss_p2t'] + losses['loss_t2p']).backward()
    return head.logit_scale.grad.item(), losses['logit_scale'].item()


def test_unclamped_forward_has_a_gradient_at_ln100():
    ln100 = math.log(100)
    openai = 4.60546875  # OpenAI's checkpoint: ln 100 rounded up in fp16
    unclamped = ContrastiveAdaptationHead()
    unclamped.clamped_after_step = True  # as LogitScaleClampHook sets it
    for value in (ln100, openai):
        grad, scale = _scale_grad(unclamped, value)
        assert grad != 0.0
        assert scale == pytest.approx(math.exp(value))
    # clamped in the forward pass (no hook), it cannot move from there
    clamped = ContrastiveAdaptationHead()
    grad, scale = _scale_grad(clamped, openai)
    assert grad == 0.0 and scale == pytest.approx(100.0)
    # the parameter itself is clamped by clamp_logit_scale_ (after a step)
    with torch.no_grad():
        unclamped.logit_scale.fill_(5.0)
    unclamped.clamp_logit_scale_()
    assert unclamped.logit_scale.item() == pytest.approx(ln100)


def _ddp_worker(rank, world, port, data, bounds, out_dir):
    os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group('gloo', rank=rank, world_size=world)
    try:
        head = ContrastiveAdaptationHead()
        sl = slice(bounds[rank], bounds[rank + 1])
        pair = data['pair'][sl].clone().requires_grad_()
        text = data['text'][sl].clone().requires_grad_()
        losses = head.loss(pair, text, data['tokens'][sl])
        loss = losses['loss_p2t'] + losses['loss_t2p']
        loss.backward()
        # DDP averages parameter gradients; do the same for the features'
        # gradient, which is what flows into the towers
        torch.save(dict(loss=loss.detach(), pair_grad=pair.grad / world,
                        text_grad=text.grad / world),
                   os.path.join(out_dir, f'rank{rank}.pt'))
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize('bounds', [(0, 3, 6), (0, 2, 6)])
def test_ddp_gather_equals_single_process(tmp_path, bounds):
    data = dict(pair=torch.randn(6, 8), text=torch.randn(6, 8),
                tokens=_tokens([1], [2], [1], [4], [2], [6]))  # duplicates
    # fork: the workers inherit the imported modules (spawn re-imports
    # mmpretrain in each, ~10 s per process on two cores)
    mp.start_processes(_ddp_worker, nprocs=2, start_method='fork',
                       args=(2, free_port(), data, bounds, str(tmp_path)))
    ranks = [torch.load(tmp_path / f'rank{r}.pt') for r in range(2)]

    head = ContrastiveAdaptationHead()
    pair = data['pair'].clone().requires_grad_()
    text = data['text'].clone().requires_grad_()
    losses = head.loss(pair, text, data['tokens'])
    loss = losses['loss_p2t'] + losses['loss_t2p']
    loss.backward()
    for r, res in enumerate(ranks):
        assert_close(res['loss'], loss.detach())
        sl = slice(bounds[r], bounds[r + 1])
        assert_close(res['pair_grad'], pair.grad[sl])
        assert_close(res['text_grad'], text.grad[sl])


@pytest.mark.parametrize('batch, dim', [(8, 16), (32, 128)])
def test_single_positive_loss_agrees_with_open_clip_clip_loss(batch, dim):
    """With distinct captions and the two directions averaged, the loss is
    open_clip's ClipLoss, to float precision (not bit for bit: see the
    comment in ContrastiveAdaptationHead.loss)."""
    from open_clip.loss import ClipLoss
    torch.manual_seed(batch)
    pair = torch.randn(batch, dim, requires_grad=True)
    text = torch.randn(batch, dim, requires_grad=True)
    tokens = torch.arange(batch)[:, None].repeat(1, 4)  # all distinct
    for loss in ('SymmetricInfoNCELoss', 'MultiPositiveInfoNCELoss'):
        head = ContrastiveAdaptationHead(
            loss=dict(type=loss, two_way_reduction='mean'))
        out = head.loss(pair, text, tokens)
        ours = out['loss_p2t'] + out['loss_t2p']
        ours_grads = torch.autograd.grad(ours, (pair, text))
        theirs = ClipLoss()(F.normalize(pair, dim=-1),
                            F.normalize(text, dim=-1), head.scale())
        theirs_grads = torch.autograd.grad(theirs, (pair, text))
        torch.testing.assert_close(ours, theirs, rtol=0, atol=2e-6)
        for a, b in zip(ours_grads, theirs_grads):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)
