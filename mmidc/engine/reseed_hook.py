"""Make every random draw of a training run a function of its seed and of
where the run is: the epoch, the iteration, the sample."""
import logging
import random
from typing import Optional

import numpy as np
import torch
from mmengine.hooks import Hook
from mmengine.logging import print_log

from mmidc.datasets.samplers import SampleSeedSampler
from mmidc.registry import HOOKS

# What a seed is drawn for (a part of its key).
_EPOCH, _ITER = 0, 1


def seed_everything(key) -> None:
    """Seed Python, numpy and torch (CPU and CUDA) from the integers
    ``key``, mixed by :class:`numpy.random.SeedSequence`."""
    words = np.random.SeedSequence(list(key)).generate_state(2)
    random.seed(int(words[0]) << 32 | int(words[1]))
    np.random.seed(int(words[0]))
    torch.manual_seed(int(words[0]) << 31 | int(words[1]) >> 1)


@HOOKS.register_module()
class EpochReseedHook(Hook):
    """Make a resumed run draw the random numbers of the uninterrupted run.

    MMEngine checkpoints do not hold the random generators' state, the
    validation loop draws random numbers between epochs, and a resumed run
    starts the loader's worker processes afresh (persistent workers carry
    their generators from epoch to epoch in an uninterrupted run). So:

    - **Data**: the training loader's sampler is wrapped in a
      :class:`~mmidc.datasets.samplers.SampleSeedSampler`, so that every
      index it yields carries the key ``(seed, epoch, pass, position)``; the
      random transforms draw from :func:`~mmidc.datasets.transforms.sample_rng`
      of that key. A visit's draws (the caption of ``TokenizeCaptions``, the
      swap of ``RandomDistractorBefore``, the negatives of
      ``SampleHardNegatives``) depend neither on the number of workers, nor
      on whether they persist, nor on which worker loads the sample.
    - **Model**: Python, numpy and torch are seeded from ``(seed, rank,
      epoch)`` before each training epoch and from ``(seed, rank,
      iteration)`` before each training iteration (dropout, IDC-PCL's
      masks: whatever the model draws in the main process).

    The epoch and iteration come from the checkpoint, and MMEngine's
    iteration-based loop skips the batches done before the checkpoint, so a
    run resumed from an epoch checkpoint (epoch-based loop) or an iteration
    checkpoint (iteration-based loop) ends with the weights of the
    uninterrupted run, on the same hardware and thread count. (MMEngine's
    epoch-based loop restarts an epoch at its first batch, so resuming it
    from a checkpoint written in the middle of an epoch does not.)

    Args:
        seed (int, optional): Base seed. Defaults to the runner's seed.
    """

    priority = 'VERY_HIGH'

    def __init__(self, seed: Optional[int] = None):
        self.seed = seed

    def _base(self, runner) -> Optional[int]:
        return self.seed if self.seed is not None else runner.seed

    def before_train(self, runner) -> None:
        """Wrap the training loader's sampler (once per loader)."""
        base = self._base(runner)
        loop = runner.train_loop
        loader = getattr(loop, 'dataloader', None)
        if base is None or loader is None:
            return
        batch_sampler = getattr(loader, 'batch_sampler', None)
        inner = getattr(batch_sampler, 'sampler', None)
        if inner is None:
            print_log(
                'EpochReseedHook: the training loader has no batch sampler '
                'with a sampler (batch_size=None?); its random transforms '
                'draw from the loader workers\' generators, which a resumed '
                'run does not restore', logger='current', level=logging.WARNING)
            return
        if isinstance(inner, SampleSeedSampler):
            return
        batch_sampler.sampler = SampleSeedSampler(inner, base)
        # MMEngine's iteration-based loop started iterating the loader when
        # it was built: start again with the keyed indices.
        iterator = getattr(loop, 'dataloader_iterator', None)
        if iterator is not None:
            loop.dataloader_iterator = type(iterator)(loader)

    def before_train_epoch(self, runner) -> None:
        base = self._base(runner)
        if base is None:
            return
        loader = getattr(runner.train_loop, 'dataloader', None)
        sampler = getattr(getattr(loader, 'batch_sampler', None), 'sampler',
                          None)
        if isinstance(sampler, SampleSeedSampler):
            sampler.set_epoch(runner.epoch)
        seed_everything((base, runner.rank, _EPOCH, runner.epoch))

    def before_train_iter(self, runner, batch_idx: int,
                          data_batch=None) -> None:
        base = self._base(runner)
        if base is not None:
            seed_everything((base, runner.rank, _ITER, runner.iter))
