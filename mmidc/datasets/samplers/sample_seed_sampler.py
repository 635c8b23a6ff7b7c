"""Give every index a training loader yields the seed of its random draws."""
from numbers import Integral
from typing import Iterator, Optional, Sized, Tuple, Union

from mmengine.dist import get_dist_info, sync_random_seed
from torch.utils.data import Sampler

from mmidc.registry import DATA_SAMPLERS

__all__ = ['SampleIndex', 'SampleSeedSampler']


class SampleIndex(int):
    """A data-set index that carries the key of the sample's random draws.

    It is the index itself for the data set (``data_list[idx]``, numpy
    indexing), and MMEngine's ``BaseDataset.get_data_info`` puts it in the
    sample as ``sample_idx``, where :func:`~mmidc.datasets.transforms.sample_rng`
    reads the key. It travels to the loader's worker processes with the
    index, so the draws do not depend on the workers' own random state.

    An ``int`` subclass, because a data set only ever receives an index: a
    pair ``(index, key)`` would need every data set and wrapper to take it.
    MMEngine's wrapper data sets compute the wrapped set's index from it:
    ``ConcatDataset`` subtracts its offset (``idx - cumulative_sizes[k]``),
    ``RepeatDataset`` wraps it (``idx % len``); those two results keep the
    key (the key belongs to the visit, not to the number). A wrapper that
    looks its index up in a table (``ClassBalancedDataset``) passes a plain
    ``int`` on: its samples have no key, and ``sample_rng`` warns.

    Args:
        value (int): The index.
        seed_key (tuple of int): ``(base seed, epoch, pass, position)``.
    """

    seed_key: Tuple[int, ...]

    def __new__(cls, value: int, seed_key: Tuple[int, ...]):
        index = super().__new__(cls, value)
        index.seed_key = tuple(int(k) for k in seed_key)
        return index

    def __reduce__(self):
        return SampleIndex, (int(self), self.seed_key)

    def _keep_key(self, result):
        # An integer result (numpy's too) is the same visit's index.
        if isinstance(result, Integral) and not isinstance(result, bool):
            return SampleIndex(int(result), self.seed_key)
        return result

    def __sub__(self, other):
        return self._keep_key(int(self) - other)

    def __mod__(self, other):
        return self._keep_key(int(self) % other)

    def __repr__(self) -> str:
        return f'SampleIndex({int(self)}, seed_key={self.seed_key})'


@DATA_SAMPLERS.register_module()
class SampleSeedSampler(Sampler):
    """The training sampler ``sampler``, its indices yielded as
    :class:`SampleIndex`, each keyed by ``(seed, epoch, pass, position)``.

    Declared in the training loader (every shipped data-set base does)::

        train_dataloader = dict(sampler=dict(
            type='SampleSeedSampler',
            sampler=dict(type='DefaultSampler', shuffle=True)))

    ``position`` counts the indices of the pass over all ranks (the ``p``-th
    index of rank ``r`` of ``W`` is position ``p * W + r``), ``pass`` the
    iterations over this sampler since the epoch changed (an
    iteration-based loop restarts the loader after each pass). The epoch is
    the training epoch :class:`~mmidc.engine.EpochReseedHook` gives
    (:meth:`start_epoch`; 0 without it). All of it is known in the main
    process, where the sampler runs, and follows the order ``sampler``
    gives, so a resumed run that visits the same positions draws the same
    numbers: a visit's draws depend neither on the loader's worker
    processes nor on which worker loads it.

    A run resumed in the middle of an epoch continues at the epoch's next
    unseen index (:meth:`start_epoch`'s ``skip``): the indices before it are
    drawn from ``sampler``, so the rest keep their order and positions, but
    not yielded, so their samples are not loaded.

    Args:
        dataset (Sized): The data set (passed on to ``sampler``'s config).
        sampler (dict | Sampler): The sampler whose indices are keyed, or
            its config (built with ``dataset`` and ``seed``).
        seed (int, optional): The base seed of the keys, also ``sampler``'s
            seed. The runner gives its seed. Defaults to a seed synchronised
            across ranks.
    """

    def __init__(self, dataset: Sized, sampler: Union[dict, Sized],
                 seed: Optional[int] = None) -> None:
        self.seed = sync_random_seed() if seed is None else int(seed)
        if isinstance(sampler, dict):
            sampler = DATA_SAMPLERS.build(
                sampler, default_args=dict(dataset=dataset, seed=self.seed))
        self.sampler = sampler
        self.epoch = 0
        self._passes = 0
        self._skip = 0  # for the next pass
        self.rank, self.world_size = get_dist_info()

    def set_epoch(self, epoch: int) -> None:
        """Set ``sampler``'s epoch, its shuffle (called by MMEngine's
        ``DistSamplerSeedHook`` before each epoch, and by the
        iteration-based loop before each pass); the keys keep their epoch."""
        if hasattr(self.sampler, 'set_epoch'):
            self.sampler.set_epoch(epoch)

    def start_epoch(self, epoch: int, skip: int = 0) -> None:
        """Key the next passes by the training epoch ``epoch``, their count
        from 0 when the epoch changes (called by
        :class:`~mmidc.engine.EpochReseedHook` before each training epoch).

        Args:
            epoch (int): The training epoch.
            skip (int): Leave out this rank's first ``skip`` indices of the
                next pass (the samples a resumed run trained on before its
                checkpoint); positions keep counting from them.
        """
        if int(epoch) != self.epoch:
            self.epoch = int(epoch)
            self._passes = 0
        self._skip = int(skip)

    def __iter__(self) -> Iterator[SampleIndex]:
        # The key is fixed when the pass starts, not at its first index.
        key = (self.seed, self.epoch, self._passes)
        skip, self._skip = self._skip, 0
        self._passes += 1
        return self._keyed(iter(self.sampler), key, skip)

    def _keyed(self, indices: Iterator[int], key: Tuple[int, int, int],
               skip: int) -> Iterator[SampleIndex]:
        for p, index in enumerate(indices):
            if p >= skip:
                yield SampleIndex(index,
                                  key + (p * self.world_size + self.rank, ))

    def __len__(self) -> int:
        return len(self.sampler)
