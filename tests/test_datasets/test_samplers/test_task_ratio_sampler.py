"""TaskRatioSampler: whole batches from one data set, in the set ratio."""
from collections import Counter

import pytest
from mmengine.dataset import BaseDataset, ConcatDataset

from mmidc.datasets.samplers import TaskRatioSampler


class Sized(BaseDataset):
    """``n`` items ``(tag, i)``."""

    def __init__(self, n, tag):
        self.n, self.tag = n, tag
        super().__init__(serialize_data=False)

    def load_data_list(self):
        return [dict(tag=self.tag, i=i) for i in range(self.n)]

    def __getitem__(self, i):
        info = self.get_data_info(i)
        return (info['tag'], info['i'])


def concat(a=10, b=7):
    return ConcatDataset([Sized(a, 'pairs'), Sized(b, 'nabirds')])


def test_batches_are_pure_and_in_ratio():
    ds = concat()
    sampler = TaskRatioSampler(ds, batch_size=4, ratios=[12, 3], seed=0)
    indices = list(sampler)
    assert len(indices) == len(sampler)
    batches = [indices[i:i + 4] for i in range(0, len(indices), 4)]
    kinds = [{ds[i][0] for i in b} for b in batches]
    assert all(len(k) == 1 for k in kinds)  # one data set per batch
    counts = Counter(k.pop() for k in kinds)
    # ceil(10 / 4) = 3 batches of pairs, 3 * 3 / 12 -> 1 of NABirds
    assert counts == {'pairs': 3, 'nabirds': 1}
    # every pair once per epoch (the last batch filled from the start)
    assert {ds[i][1] for b in batches for i in b if ds[i][0] == 'pairs'} == set(range(10))
    sampler.set_epoch(1)
    assert list(sampler) != indices
    big = TaskRatioSampler(ds, batch_size=2, ratios=[1, 2], seed=0)
    got = Counter(ds[list(big)[k]][0] for k in range(0, len(big), 2))
    assert got == {'pairs': 5, 'nabirds': 10}  # NABirds cycled through


def test_bad_arguments():
    with pytest.raises(TypeError, match='ConcatDataset'):
        TaskRatioSampler(Sized(3, 'x'), batch_size=2, ratios=[1])
    with pytest.raises(ValueError, match='1 ratios for 2 data sets'):
        TaskRatioSampler(concat(), batch_size=2, ratios=[1])
    with pytest.raises(ValueError, match='ratios'):
        TaskRatioSampler(concat(), batch_size=2, ratios=[0, 1])
