"""Give every index a training loader yields the seed of its random draws."""
from numbers import Integral
from typing import Iterator, Sized, Tuple

from mmengine.dist import get_dist_info
from torch.utils.data import Sampler

__all__ = ['SampleIndex', 'SampleSeedSampler']


class SampleIndex(int):
    """A data-set index that carries the key of the sample's random draws.

    It is the index itself for the data set (``data_list[idx]``, numpy
    indexing, ``ConcatDataset``'s offsets, which keep the key: the key
    belongs to the visit, not to the number), and MMEngine's
    ``BaseDataset.get_data_info`` puts it in the sample as ``sample_idx``,
    where :func:`~mmidc.datasets.transforms.sample_rng` reads the key. It
    travels to the loader's worker processes with the index, so the draws
    do not depend on the workers' own random state.

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
        # ConcatDataset: idx - cumulative_sizes[k - 1].
        return self._keep_key(int(self) - other)

    def __mod__(self, other):
        # RepeatDataset: idx % len(dataset).
        return self._keep_key(int(self) % other)

    def __repr__(self) -> str:
        return f'SampleIndex({int(self)}, seed_key={self.seed_key})'


class SampleSeedSampler(Sampler):
    """Wrap a training loader's sampler: yield its indices as
    :class:`SampleIndex`, each keyed by ``(seed, epoch, pass, position)``.

    ``position`` counts the indices of the pass over all ranks (the ``p``-th
    index of rank ``r`` of ``W`` is position ``p * W + r``), ``pass`` the
    iterations over this sampler since :meth:`set_epoch` (an iteration-based
    loop restarts the loader after each pass over a finite sampler). All of
    it is known in the main process, where the sampler runs, and follows
    the order the wrapped sampler gives, so a resumed run that visits the
    same positions draws the same numbers: a visit's draws depend neither
    on the loader's worker processes nor on which worker loads it.
    :class:`~mmidc.engine.EpochReseedHook` installs it.

    A run resumed in the middle of an epoch continues at the epoch's next
    unseen index (:meth:`skip_next`): the indices before it are drawn from
    the wrapped sampler, so the rest keep their order and positions, but
    not yielded, so their samples are not loaded.

    Args:
        sampler (Sampler): The loader's sampler (any; ``len`` is its).
        seed (int): The base seed.
    """

    def __init__(self, sampler: Sized, seed: int) -> None:
        self.sampler = sampler
        self.seed = int(seed)
        self.epoch = 0
        self._passes = 0
        self._skip = None  # (epoch, count) for the epoch's first pass
        self.rank, self.world_size = get_dist_info()

    def skip_next(self, epoch: int, count: int) -> None:
        """Leave out the first ``count`` indices of this rank in the first
        pass of ``epoch`` (the samples a resumed run trained on before its
        checkpoint); positions keep counting from the skipped ones.

        Args:
            epoch (int): The epoch the resumed run is in.
            count (int): Indices of this rank already trained on.
        """
        self._skip = (int(epoch), int(count)) if count > 0 else None

    def set_epoch(self, epoch: int) -> None:
        """Key the next passes by ``epoch``, counted from 0 when the epoch
        changes (called by the hook before each training epoch; the wrapped
        sampler's own epoch is set by ``DistSamplerSeedHook``)."""
        if int(epoch) != self.epoch:
            self.epoch = int(epoch)
            self._passes = 0

    def __iter__(self) -> Iterator[SampleIndex]:
        # The key is fixed when the pass starts, not at its first index.
        key = (self.seed, self.epoch, self._passes)
        skip = 0
        if self._skip is not None and self._skip[0] == self.epoch \
                and self._passes == 0:
            skip = self._skip[1]
            self._skip = None
        self._passes += 1
        return self._keyed(iter(self.sampler), key, skip)

    def _keyed(self, indices: Iterator[int], key: Tuple[int, int, int],
               skip: int = 0) -> Iterator[SampleIndex]:
        for p, index in enumerate(indices):
            if p < skip:
                continue
            yield SampleIndex(index,
                              key + (p * self.world_size + self.rank, ))

    def __len__(self) -> int:
        return len(self.sampler)
