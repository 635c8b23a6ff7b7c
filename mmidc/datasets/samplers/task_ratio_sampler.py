"""Whole batches from one part of a ConcatDataset at a time, in set ratios."""
import math
from typing import Iterator, List, Optional, Sequence

import torch
from mmengine.dataset import ConcatDataset
from mmengine.dist import get_dist_info, sync_random_seed
from torch.utils.data import Sampler

from mmidc.registry import DATA_SAMPLERS

__all__ = ['TaskRatioSampler']


@DATA_SAMPLERS.register_module()
class TaskRatioSampler(Sampler):
    """Yield indices of a :class:`~mmengine.dataset.ConcatDataset` so that
    every batch of ``batch_size`` comes from one of its data sets, with the
    data sets' batches in the ratio ``ratios`` (as the published IDC-PCL
    code's loaders per task: Birds-to-Words pairs 12 : NABirds 3).

    An epoch holds every batch of the first data set once (``ceil(n0 /
    batch_size)``; its last batch filled up from its start) and
    ``ratios[k] / ratios[0]`` times as many batches of data set ``k``
    (cycling through it). Each data set's order and the order of the
    batches are shuffled with ``seed + epoch``; the batches are split
    across ranks (rounded up so that every rank gets as many).

    Args:
        dataset (ConcatDataset): The data sets.
        batch_size (int): The data loader's ``batch_size`` (per process).
        ratios (Sequence[float]): Relative number of batches of each data
            set, ``ratios[0] > 0``.
        shuffle (bool): Defaults to True.
        seed (int, optional): Defaults to a seed synchronised across ranks.
    """

    def __init__(self, dataset: ConcatDataset, batch_size: int,
                 ratios: Sequence[float], shuffle: bool = True,
                 seed: Optional[int] = None):
        if not isinstance(dataset, ConcatDataset):
            raise TypeError('TaskRatioSampler needs a ConcatDataset, got '
                            f'{type(dataset).__name__}')
        parts = dataset.datasets
        if len(ratios) != len(parts):
            raise ValueError(f'TaskRatioSampler: {len(ratios)} ratios for '
                             f'{len(parts)} data sets')
        if ratios[0] <= 0 or any(r < 0 for r in ratios):
            raise ValueError(f'ratios must be >= 0 with ratios[0] > 0, got '
                             f'{list(ratios)}')
        if batch_size < 1:
            raise ValueError(f'batch_size must be >= 1, got {batch_size}')
        for k, part in enumerate(parts):
            if ratios[k] > 0 and len(part) == 0:
                raise ValueError(f'TaskRatioSampler: data set {k} is empty')
        self.rank, self.world_size = get_dist_info()
        self.dataset = dataset
        self.batch_size = batch_size
        self.ratios = list(ratios)
        self.shuffle = shuffle
        self.seed = sync_random_seed() if seed is None else seed
        self.epoch = 0
        self.offsets = [0] + list(dataset.cumulative_sizes[:-1])
        first = math.ceil(len(parts[0]) / batch_size)
        self.num_batches = [
            first if k == 0 else round(first * r / ratios[0])
            for k, r in enumerate(self.ratios)]
        self.batches_per_rank = math.ceil(sum(self.num_batches) / self.world_size)

    def _batches(self) -> List[List[int]]:
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        batches = []
        for k, part in enumerate(self.dataset.datasets):
            n = len(part)
            need = self.num_batches[k] * self.batch_size
            order = []
            while len(order) < need:  # cycle through the data set
                order += (torch.randperm(n, generator=g).tolist()
                          if self.shuffle else list(range(n)))
            order = [self.offsets[k] + i for i in order[:need]]
            batches += [order[b:b + self.batch_size]
                        for b in range(0, need, self.batch_size)]
        if self.shuffle:
            batches = [batches[i] for i in
                       torch.randperm(len(batches), generator=g).tolist()]
        total = self.batches_per_rank * self.world_size
        batches = (batches * (total // len(batches) + 1))[:total]
        return batches[self.rank:total:self.world_size]

    def __iter__(self) -> Iterator[int]:
        return iter([i for b in self._batches() for i in b])

    def __len__(self) -> int:
        return self.batches_per_rank * self.batch_size

    def set_epoch(self, epoch: int) -> None:
        """Another shuffle per epoch (called by ``DistSamplerSeedHook``)."""
        self.epoch = epoch
