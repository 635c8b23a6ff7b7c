"""SymmetricInfoNCELoss: one positive per row, the two directions summed
(the paper) or averaged (the published code)."""
import math

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from mmidc.models.losses import SymmetricInfoNCELoss
from mmidc.registry import MODELS


def test_two_way_sum_and_mean_by_hand():
    """CE(sim) and CE(sim^T) of a 2x2 batch, written out."""
    sim = torch.tensor([[1., .6], [0., .8]])  # pairs x captions
    tokens = torch.tensor([[1], [2]])
    e = math.exp
    p2t = (-math.log(e(1) / (e(1) + e(.6)))
           - math.log(e(.8) / (e(0) + e(.8)))) / 2
    t2p = (-math.log(e(1) / (e(1) + e(0)))
           - math.log(e(.8) / (e(.6) + e(.8)))) / 2
    summed = MODELS.build(dict(type='SymmetricInfoNCELoss'))(sim, tokens)
    assert summed['loss_p2t'].item() == pytest.approx(p2t, rel=1e-6)
    assert summed['loss_t2p'].item() == pytest.approx(t2p, rel=1e-6)
    mean = SymmetricInfoNCELoss('mean')(sim, tokens)
    assert (mean['loss_p2t'] + mean['loss_t2p']).item() == \
        pytest.approx((p2t + t2p) / 2, rel=1e-6)
    assert mean['loss_p2t'].item() == pytest.approx(p2t / 2, rel=1e-6)
    weighted = SymmetricInfoNCELoss(loss_weight=3.0)(sim, tokens)
    assert weighted['loss_t2p'].item() == pytest.approx(3 * t2p, rel=1e-6)


def test_duplicate_captions_are_negatives():
    """One-hot targets whatever the tokens: plain cross-entropy."""
    logits = torch.randn(4, 4)
    tokens = torch.tensor([[5, 9], [5, 9], [7, 0], [8, 0]])
    out = SymmetricInfoNCELoss()(logits, tokens)
    target = torch.arange(4)
    assert_close(out['loss_p2t'], F.cross_entropy(logits, target))
    assert_close(out['loss_t2p'], F.cross_entropy(logits.t(), target))


def test_rejects_an_unknown_reduction():
    with pytest.raises(ValueError, match='two_way_reduction'):
        SymmetricInfoNCELoss('avg')
