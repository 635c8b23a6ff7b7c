"""MultiPositiveInfoNCELoss: identical captions are positives of each
other's pairs."""
import math

import torch
from torch.testing import assert_close

from mmidc.models.losses import MultiPositiveInfoNCELoss, SymmetricInfoNCELoss


def test_identical_captions_share_the_target_by_hand():
    r = 1 / math.sqrt(2)
    sim = torch.tensor([[1., .6, 0.], [0., .8, 1.], [r, 1.4 * r, r]])
    tokens = torch.tensor([[5, 9], [5, 9], [7, 0]])  # captions 0, 1 identical
    losses = MultiPositiveInfoNCELoss()(sim, tokens)
    logp_p2t = sim.log_softmax(1)
    logp_t2p = sim.t().log_softmax(1)
    # pairs 0 and 1 both have caption "5 9": half the target on each
    p2t = -(0.5 * (logp_p2t[0, 0] + logp_p2t[0, 1])
            + 0.5 * (logp_p2t[1, 0] + logp_p2t[1, 1])
            + logp_p2t[2, 2]) / 3
    t2p = -(0.5 * (logp_t2p[0, 0] + logp_t2p[0, 1])
            + 0.5 * (logp_t2p[1, 0] + logp_t2p[1, 1])
            + logp_t2p[2, 2]) / 3
    assert_close(losses['loss_p2t'], p2t)
    assert_close(losses['loss_t2p'], t2p)
    plain = SymmetricInfoNCELoss()(sim, tokens)
    assert not torch.allclose(plain['loss_p2t'], p2t)


def test_without_duplicates_it_is_the_plain_loss():
    logits = torch.randn(5, 5)
    tokens = torch.arange(1, 6)[:, None]
    for reduction in ('sum', 'mean'):
        ours = MultiPositiveInfoNCELoss(reduction)(logits, tokens)
        plain = SymmetricInfoNCELoss(reduction)(logits, tokens)
        for key in ('loss_p2t', 'loss_t2p'):
            assert torch.equal(ours[key], plain[key])
