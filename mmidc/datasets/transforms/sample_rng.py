"""The random generator of one transform for one sample."""
import logging
import zlib

import numpy as np
from mmengine.logging import print_log

__all__ = ['sample_rng']

_warned = []  # once per process


def sample_rng(results: dict, stream: str) -> np.random.Generator:
    """A numpy generator for the random draws of ``stream`` (a transform's
    name) on the sample ``results``.

    Seeded by the key ``(seed, epoch, pass, position)`` of the sample's
    ``sample_idx`` (a :class:`~mmidc.datasets.samplers.SampleIndex`, which
    the training loader's ``SampleSeedSampler`` yields) and by ``stream``:
    each transform draws the same numbers whichever process loads the
    sample, in a resumed run too (docs/design.md, ``EpochReseedHook``).
    Without a key, seeded from numpy's global generator (draws that differ
    at each call and follow ``np.random.seed``): quietly for a sample
    without ``sample_idx`` (inference, a transform called alone), with a
    warning once per process for a data-set sample whose index has no key
    (a loader without ``SampleSeedSampler``, a wrapper that drops it).

    Args:
        results (dict): The sample.
        stream (str): A name for the draws, the same in every run.

    Returns:
        numpy.random.Generator: The generator.
    """
    index = results.get('sample_idx')
    key = getattr(index, 'seed_key', None)
    if key is None:
        if index is not None and not _warned:
            _warned.append(True)
            print_log(
                f'{stream}: sample {index} has no seed key (its sample_idx '
                'is not a SampleIndex), so its random draws come from '
                "numpy's global generator in the process that loads it, "
                'which a resumed training run does not restore. Declare '
                "train_dataloader.sampler=dict(type='SampleSeedSampler', "
                'sampler=...) and a data-set wrapper that passes the index '
                'on (ConcatDataset, RepeatDataset)', logger='current',
                level=logging.WARNING)
        return np.random.default_rng(
            np.random.randint(2**63 - 1, dtype=np.int64))
    return np.random.default_rng(np.random.SeedSequence(
        entropy=list(key), spawn_key=(zlib.crc32(stream.encode()), )))
