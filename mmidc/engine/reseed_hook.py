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
from .mid_epoch_resume import (batches_done_in_epoch, raise_mid_epoch,
                               start_epoch_at)

# What a seed is drawn for (a part of its key).
_EPOCH, _ITER = 0, 1


def _declare(name: str) -> str:
    return ("train_dataloader.sampler=dict(type='SampleSeedSampler', "
            f"sampler=dict(type='{name}', ...))")


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

    MMEngine checkpoints do not hold the random generators' state and a
    resumed run starts the loader workers afresh. So:

    - **Data**: this hook gives the training loader's
      :class:`~mmidc.datasets.samplers.SampleSeedSampler` the epoch of the
      keys ``(seed, epoch, pass, position)`` its indices carry, from which
      the random transforms draw
      (:func:`~mmidc.datasets.transforms.sample_rng`), whatever the
      workers. Another sampler is a warning naming
      ``train_dataloader.sampler`` (a resumed run is then not exact).
    - **Model**: Python, numpy and torch are seeded from ``(seed, rank,
      epoch)`` before each training epoch and from ``(seed, rank,
      iteration)`` before each training iteration (dropout, IDC-PCL's
      masks).
    - **Mid-epoch checkpoints** (MMEngine's epoch-based loop restarts an
      epoch at its first batch): the resumed epoch starts at its first
      unseen batch (:mod:`~mmidc.engine.mid_epoch_resume`); what cannot
      (another sampler, another loop class, a batch sampler without a
      ``batch_size``) is an error naming it, never a silent replay.

    A run resumed from any checkpoint thus ends with the uninterrupted run's
    weights on the same hardware (in full: docs/design.md, "Runtime").

    Args:
        seed (int, optional): Base seed of the reseeding. Defaults to the
            runner's seed. (The data's keys start from the sampler's seed,
            the runner's.)
    """

    priority = 'VERY_HIGH'

    def __init__(self, seed: Optional[int] = None):
        self.seed = seed
        self._sampler: Optional[SampleSeedSampler] = None
        self._skip = 0  # indices of the resumed epoch trained on

    def _base(self, runner) -> Optional[int]:
        return self.seed if self.seed is not None else runner.seed

    def before_train(self, runner) -> None:
        """Find the training loader's ``SampleSeedSampler``; on a resume in
        the middle of an epoch, start the epoch at its next unseen batch."""
        loop = runner.train_loop
        loader = getattr(loop, 'dataloader', None)
        if loader is None:
            return
        # a batch sampler's (MMEngine's batch_sampler=), else the loader's
        sampler = getattr(loader.batch_sampler, 'sampler', loader.sampler)
        done = batches_done_in_epoch(runner)
        if not isinstance(sampler, SampleSeedSampler):
            name = type(sampler).__name__
            if done:
                raise_mid_epoch(runner, done, f'its training sampler {name} '
                                f'is not a SampleSeedSampler ({_declare(name)})')
            print_log(
                f'EpochReseedHook: the training sampler is {name}, not a '
                'SampleSeedSampler: the random transforms draw from the '
                "loader workers' generators, which a resumed run does not "
                f'restore, so a resumed run is not exact. Set '
                f'{_declare(name)}', logger='current', level=logging.WARNING)
            return
        self._sampler = sampler
        if done:
            batch_size = getattr(loader.batch_sampler, 'batch_size', None)
            if not isinstance(batch_size, int):
                raise_mid_epoch(runner, done, 'its batch sampler '
                                f'{type(loader.batch_sampler).__name__} has '
                                'no batch_size')
            self._skip = done * batch_size
            start_epoch_at(loop, done)
            print_log(
                f'resuming in the middle of epoch {runner.epoch + 1}: its '
                f'first {done} of {len(loader)} batches were trained before '
                f'the checkpoint; the epoch goes on at batch {done + 1}',
                logger='current')

    def before_train_epoch(self, runner) -> None:
        if self._sampler is not None:
            self._sampler.start_epoch(runner.epoch, self._skip)
            self._skip = 0
        base = self._base(runner)
        if base is not None:
            seed_everything((base, runner.rank, _EPOCH, runner.epoch))

    def before_train_iter(self, runner, batch_idx: int,
                          data_batch=None) -> None:
        base = self._base(runner)
        if base is not None:
            seed_everything((base, runner.rank, _ITER, runner.iter))
