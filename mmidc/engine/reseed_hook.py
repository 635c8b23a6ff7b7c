"""Re-seed the random generators at the start of every training epoch."""
import random

import numpy as np
import torch
from mmengine.hooks import Hook

from mmidc.registry import HOOKS


@HOOKS.register_module()
class EpochReseedHook(Hook):
    """Seed Python, numpy and torch from ``(seed, epoch)`` before each epoch.

    MMEngine checkpoints do not hold the random generators' state, and the
    validation loop consumes random numbers after a checkpoint is written. A
    run resumed from an epoch checkpoint therefore draws different random
    numbers (caption sampling, augmentation, dropout, the data loader's worker
    seeds) than the uninterrupted run. Re-seeding from ``(seed, epoch)`` makes
    every epoch start from the same state in both cases, so a resumed run
    reproduces the uninterrupted one (on the same hardware and thread count).

    Args:
        seed (int, optional): Base seed. Defaults to the runner's seed.
    """

    priority = 'VERY_HIGH'

    def __init__(self, seed=None):
        self.seed = seed

    def before_train_epoch(self, runner) -> None:
        base = self.seed if self.seed is not None else runner.seed
        if base is None:
            return
        # Distinct streams per epoch and per rank; 2**31 keeps numpy happy.
        epoch_seed = (base * 1_000_003 + runner.epoch * 7919 +
                      runner.rank) % (2**31)
        random.seed(epoch_seed)
        np.random.seed(epoch_seed)
        torch.manual_seed(epoch_seed)
