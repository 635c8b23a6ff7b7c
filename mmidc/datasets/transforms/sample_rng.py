"""The random generator of one transform for one sample."""
import zlib

import numpy as np

__all__ = ['sample_rng']


def sample_rng(results: dict, stream: str) -> np.random.Generator:
    """A numpy generator for the random draws of ``stream`` (a transform's
    name) on the sample ``results``.

    In a training run the sample's ``sample_idx`` is a
    :class:`~mmidc.datasets.samplers.SampleIndex` (installed by
    :class:`~mmidc.engine.EpochReseedHook`): the generator is then seeded by
    its key ``(seed, epoch, pass, position)`` and by ``stream``, so the
    draws are the same whichever process loads the sample and whatever it
    drew before (a resumed run draws what the uninterrupted run drew), and
    each transform has a stream of its own. Elsewhere (inference, a
    transform called alone) it is seeded from numpy's global generator, so
    the draws differ at each call and follow ``np.random.seed``.

    Args:
        results (dict): The sample.
        stream (str): A name for the draws, the same in every run.

    Returns:
        numpy.random.Generator: The generator.
    """
    key = getattr(results.get('sample_idx'), 'seed_key', None)
    if key is None:
        return np.random.default_rng(
            np.random.randint(2**63 - 1, dtype=np.int64))
    return np.random.default_rng(np.random.SeedSequence(
        entropy=list(key), spawn_key=(zlib.crc32(stream.encode()), )))
