import pytest
import torch
from torch.testing import assert_close

from mmidc.models.necks import PairPooling


def test_cls_mode_averages_the_two_images_cls_tokens():
    tokens = torch.randn(2, 3 * 5, 8)  # 3 segments of n+1 = 5
    pool = PairPooling(('before', 'after', 'diff'))
    assert_close(pool(tokens), (tokens[:, 0] + tokens[:, 5]) / 2)
    # found by name, not by position
    pool = PairPooling(('diff', 'before', 'after'))
    assert_close(pool(tokens), (tokens[:, 5] + tokens[:, 10]) / 2)


def test_mean_and_max_modes():
    tokens = torch.randn(2, 10, 8)
    assert_close(PairPooling(mode='mean')(tokens), tokens.mean(1))
    assert_close(PairPooling(mode='max')(tokens), tokens.max(1).values)
    with pytest.raises(ValueError, match='mode'):
        PairPooling(mode='sum')
    with pytest.raises(ValueError, match="'before' and 'after'"):
        PairPooling(('a', 'b'))
