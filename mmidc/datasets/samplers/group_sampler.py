"""Shuffle groups of data-set indices, split them across ranks, flatten."""
import math
from typing import Iterator, List, Optional, Sized

import torch
from mmengine.dist import get_dist_info, sync_random_seed
from torch.utils.data import Sampler

__all__ = ['GroupSampler']


class GroupSampler(Sampler):
    """MMEngine's ``DefaultSampler`` over groups of indices instead of single
    indices: the groups are shuffled (``seed + epoch``), split across ranks
    (``round_up`` repeats groups so that every rank gets as many), and each
    group's indices are yielded one after another. Subclasses define the
    groups (:meth:`build_groups`).

    Args:
        dataset (Sized): The data set.
        shuffle (bool): Shuffle the groups. Defaults to True.
        seed (int, optional): Shuffle seed, the same on every rank.
            Defaults to a seed synchronised across ranks.
        round_up (bool): Repeat groups so that every rank gets the same
            number. Defaults to True.
    """

    def __init__(self,
                 dataset: Sized,
                 shuffle: bool = True,
                 seed: Optional[int] = None,
                 round_up: bool = True) -> None:
        self.rank, self.world_size = get_dist_info()
        self.dataset = dataset
        self.groups = self.build_groups(dataset)
        self.shuffle = shuffle
        self.seed = sync_random_seed() if seed is None else seed
        self.epoch = 0
        self.round_up = round_up
        num_groups = len(self.groups)
        if round_up:
            self.groups_per_rank = math.ceil(num_groups / self.world_size)
            self.total_groups = self.groups_per_rank * self.world_size
        else:
            self.groups_per_rank = math.ceil(
                (num_groups - self.rank) / self.world_size)
            self.total_groups = num_groups

    def build_groups(self, dataset) -> List[List[int]]:
        """The groups of indices, each yielded as a whole."""
        raise NotImplementedError

    def _rank_groups(self) -> List[int]:
        if not self.groups:
            return []
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            order = torch.randperm(len(self.groups), generator=g).tolist()
        else:
            order = list(range(len(self.groups)))
        if self.round_up:
            order = (order * (self.total_groups // len(order) + 1)
                     )[:self.total_groups]
        return order[self.rank:self.total_groups:self.world_size]

    def __iter__(self) -> Iterator[int]:
        return iter([i for g in self._rank_groups() for i in self.groups[g]])

    def __len__(self) -> int:
        """The number of indices this rank yields per epoch."""
        groups = self.groups
        if len({len(g) for g in groups}) <= 1:  # all of one size
            return self.groups_per_rank * (len(groups[0]) if groups else 0)
        return sum(len(groups[g]) for g in self._rank_groups())

    def set_epoch(self, epoch: int) -> None:
        """Another shuffle per epoch (called by ``DistSamplerSeedHook``)."""
        self.epoch = epoch
