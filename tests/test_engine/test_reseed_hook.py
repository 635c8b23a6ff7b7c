"""EpochReseedHook: every epoch starts from a state given by (seed, epoch,
rank), whatever was drawn before it."""
import random
from types import SimpleNamespace

import numpy as np
import torch

from mmidc.engine import EpochReseedHook


def _draws():
    return random.random(), float(np.random.rand()), float(torch.rand(()))


def _epoch_start(hook, epoch, rank=0, seed=5):
    hook.before_train_epoch(SimpleNamespace(seed=seed, epoch=epoch, rank=rank))
    return _draws()


def test_epochs_start_from_their_own_seed():
    hook = EpochReseedHook()
    first = _epoch_start(hook, 1)
    _draws()  # a validation loop, say, draws more
    assert _epoch_start(hook, 1) == first
    assert _epoch_start(hook, 2) != first
    assert _epoch_start(hook, 1, rank=1) != first
    assert _epoch_start(EpochReseedHook(seed=6), 1) != first  # its own seed wins
    torch.manual_seed(0)
    untouched = _draws()
    torch.manual_seed(0)
    EpochReseedHook().before_train_epoch(SimpleNamespace(seed=None, epoch=1, rank=0))
    assert _draws()[2] == untouched[2]  # no seed: nothing re-seeded
