import pytest
import torch
from torch.testing import assert_close

from projects.from_scratch.models.necks import ChangeSummaryNeck


def test_segment_maxima_then_change_readouts():
    neck = ChangeSummaryNeck(8, ('before', 'after', 'diff'), change_tokens=2)
    assert neck.num_tokens == 3 + 4
    tokens = torch.randn(2, 3 * 5, 8)  # [B, S(n+1), D]
    out = neck(tokens)
    assert out.shape == (2, 7, 8)
    # each segment's channel-wise max
    assert_close(out[:, :3], tokens.view(2, 3, 5, 8).max(2).values)
    # readouts: softmax over positions of a linear score of
    # [before, after, |after - before|], weighted sums of each image's tokens
    before, after = tokens[:, :5], tokens[:, 5:10]
    score = neck.change_score(torch.cat([before, after, (after - before).abs()], -1))
    weights = score.softmax(1)  # [B, n+1, K]
    for k in range(2):
        w = weights[..., k:k + 1]  # [B, n+1, 1]
        assert_close(out[:, 3 + k], (w * before).sum(1))
        assert_close(out[:, 5 + k], (w * after).sum(1))


def test_a_change_in_one_position_is_read_there():
    neck = ChangeSummaryNeck(4, change_tokens=1)
    with torch.no_grad():  # score = |after - before| summed over channels
        neck.change_score.weight.zero_()
        neck.change_score.weight[0, 8:] = 10.0
        neck.change_score.bias.zero_()
    before = torch.zeros(1, 6, 4)
    after = before.clone()
    after[0, 3] = 1.0  # the changed position
    out = neck(torch.cat([before, after], 1))  # [1, 2 + 2, 4]
    assert_close(out[0, 3], after[0, 3], atol=1e-3, rtol=0)


def test_without_readouts_and_bad_layouts():
    neck = ChangeSummaryNeck(8, change_tokens=0)
    assert neck.num_tokens == 2 and neck(torch.randn(1, 10, 8)).shape == (1, 2, 8)
    with pytest.raises(ValueError, match='change_tokens'):
        ChangeSummaryNeck(8, change_tokens=-1)
    with pytest.raises(ValueError, match="'before' and 'after'"):
        ChangeSummaryNeck(8, ('a', 'b'))
    with pytest.raises(ValueError, match='do not split'):
        ChangeSummaryNeck(8)(torch.randn(1, 9, 8))
