import pytest
import torch

from mmidc.models.losses import (DifferenceAlignmentLoss,
                                 SplitBatchDifferenceAlignmentLoss)


@pytest.mark.parametrize('batch_size,num_negatives,pairs', [
    (6, 2, 2), (200, 6, 28), (7, 6, 1), (3, 6, 1), (5, 0, 5)])
def test_reads_a_share_of_the_batch(batch_size, num_negatives, pairs):
    # about B sequences: B // (1 + K) pairs with their K negatives, at least one
    loss = SplitBatchDifferenceAlignmentLoss()
    assert loss.num_pairs(batch_size, num_negatives) == pairs


def test_the_rest_is_fda():
    pair, text = torch.randn(2, 3, 4), torch.randn(2, 3, 4)
    kwargs = dict(temperature=0.2, loss_weight=3.0)
    assert SplitBatchDifferenceAlignmentLoss(**kwargs)(pair, text).item() == \
        pytest.approx(DifferenceAlignmentLoss(**kwargs)(pair, text).item(), rel=1e-6)
