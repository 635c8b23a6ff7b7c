"""EpochReseedHook: every epoch and every iteration start from a state given
by (seed, rank, epoch or iteration), whatever was drawn before; the training
loader's indices carry the key of their samples' draws."""
import logging
import random
import time
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from mmengine.dataset import DefaultSampler
from mmengine.runner import EpochBasedTrainLoop
from mmengine.runner.loops import _InfiniteDataloaderIterator
from torch.utils.data import DataLoader

from mmidc.datasets.samplers import SampleIndex, SampleSeedSampler
from mmidc.engine import EpochReseedHook
from mmidc.engine import reseed_hook
from mmidc.engine.resume_check import ResumeRefusedError


def _draws():
    return random.random(), float(np.random.rand()), float(torch.rand(()))


def _runner(seed=5, epoch=0, rank=0, it=0, loop=None):
    return SimpleNamespace(seed=seed, epoch=epoch, rank=rank, iter=it,
                           train_loop=loop or SimpleNamespace(dataloader=None))


def _epoch_start(hook, epoch, rank=0, seed=5):
    hook.before_train_epoch(_runner(seed, epoch, rank))
    return _draws()


def _iter_start(hook, it, rank=0, seed=5):
    hook.before_train_iter(_runner(seed, rank=rank, it=it), batch_idx=0)
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
    EpochReseedHook().before_train_epoch(_runner(seed=None, epoch=1))
    assert _draws()[2] == untouched[2]  # no seed: nothing re-seeded


def test_iterations_start_from_their_own_seed():
    """A run resumed at iteration k draws (dropout, masks) what the
    uninterrupted run drew at k, not what it drew at 0."""
    hook = EpochReseedHook()
    at_7 = _iter_start(hook, 7)
    _iter_start(hook, 0)
    _draws()
    assert _iter_start(hook, 7) == at_7
    assert _iter_start(hook, 8) != at_7
    assert _iter_start(hook, 7, rank=1) != at_7
    assert _epoch_start(hook, 7) != at_7  # epoch 7 is not iteration 7


class Indices:
    """A data set whose items are the indices the loader asked for."""

    def __len__(self):
        return 10

    def __getitem__(self, index):
        return index


def _loader(keyed=True, **kwargs):
    dataset = Indices()
    sampler = DefaultSampler(dataset, shuffle=True, seed=3)
    if keyed:
        sampler = SampleSeedSampler(dataset, sampler, seed=11)
    return DataLoader(dataset, batch_size=4, collate_fn=list, sampler=sampler,
                      **kwargs)


def test_the_declared_sampler_is_keyed_by_the_training_epoch():
    loader = _loader()
    sampler = loader.sampler
    loop = SimpleNamespace(dataloader=loader)
    hook = EpochReseedHook()
    hook.before_train(_runner(seed=11, loop=loop))
    assert loader.sampler is sampler  # nothing installed
    hook.before_train_epoch(_runner(seed=11, epoch=2, loop=loop))
    sampler.set_epoch(2)  # DistSamplerSeedHook: the shuffle's epoch
    assert sampler.sampler.epoch == 2
    indices = [i for batch in loader for i in batch]
    assert sorted(indices) == list(range(10))
    assert all(isinstance(i, SampleIndex) for i in indices)
    assert [i.seed_key for i in indices] == [(11, 2, 0, p) for p in range(10)]
    # a second pass in the same epoch (an iteration-based loop's restart,
    # which sets the shuffle's epoch, not the keys')
    sampler.set_epoch(3)
    assert {i.seed_key[1:3] for b in loader for i in b} == {(2, 1)}
    hook.before_train_epoch(_runner(seed=11, epoch=3, loop=loop))
    assert {i.seed_key[1:3] for b in loader for i in b} == {(3, 0)}


def test_an_iteration_based_loops_passes_are_keyed(monkeypatch):
    """MMEngine's IterBasedTrainLoop starts iterating its loader when it is
    built, before any hook, and sets the sampler's epoch at each pass: the
    passes are keyed (seed, 0, pass), as the hook's epoch stays 0."""
    monkeypatch.setattr(time, 'sleep', lambda s: None)  # MMEngine's restart pause
    loader = _loader(num_workers=1, persistent_workers=True)
    loop = SimpleNamespace(dataloader=loader,
                           dataloader_iterator=_InfiniteDataloaderIterator(loader))
    hook = EpochReseedHook()
    hook.before_train(_runner(seed=11, loop=loop))
    hook.before_train_epoch(_runner(seed=11, loop=loop))
    keys = [i.seed_key for _ in range(5) for i in next(loop.dataloader_iterator)]
    assert keys[:10] == [(11, 0, 0, p) for p in range(10)]
    assert keys[10:] == [(11, 0, 1, p) for p in range(8)]  # the next pass
    assert loader.sampler.sampler.epoch == 1  # the next pass's shuffle


def test_another_sampler_is_a_warning_naming_the_config_key(monkeypatch):
    logged = []
    monkeypatch.setattr(reseed_hook, 'print_log',
                        lambda msg, **kw: logged.append((msg, kw)))
    loader = _loader(keyed=False)
    sampler = loader.sampler
    runner = _runner(seed=11, loop=SimpleNamespace(dataloader=loader))
    hook = EpochReseedHook()
    hook.before_train(runner)
    hook.before_train_epoch(runner)
    assert loader.sampler is sampler and loader.batch_sampler.sampler is sampler
    assert len(logged) == 1 and logged[0][1]['level'] == logging.WARNING
    assert "train_dataloader.sampler=dict(type='SampleSeedSampler', " \
        "sampler=dict(type='DefaultSampler'" in logged[0][0]


def test_a_mid_epoch_resume_with_another_sampler_is_refused():
    loop = EpochBasedTrainLoop.__new__(EpochBasedTrainLoop)  # 3 batches
    loop.dataloader = _loader(keyed=False)
    with pytest.raises(ResumeRefusedError, match=r'middle of epoch 2 .*after '
                       r'1 of its 3 batches\): its training sampler '
                       r'DefaultSampler is not a SampleSeedSampler'):
        EpochReseedHook().before_train(_runner(epoch=1, it=4, loop=loop))
