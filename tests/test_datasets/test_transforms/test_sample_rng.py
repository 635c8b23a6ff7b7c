"""sample_rng: a sample's draws are a function of its key and the stream;
without a key they follow numpy's global generator (a data-set sample
without a key: with a warning, once)."""
import importlib
import logging

import numpy as np

from mmidc.datasets.samplers import SampleIndex
from mmidc.datasets.transforms import sample_rng


def keyed(*key):
    return dict(sample_idx=SampleIndex(3, key))


def numbers(results, stream='A'):
    return sample_rng(results, stream).integers(1 << 30, size=4).tolist()


def test_keyed_draws_depend_on_the_key_and_stream_only():
    np.random.seed(1)
    first = numbers(keyed(0, 1, 0, 5))
    np.random.seed(2)
    assert numbers(keyed(0, 1, 0, 5)) == first  # whatever was drawn before
    assert numbers(keyed(0, 1, 0, 5), 'B') != first  # a stream of its own
    for other in ((1, 1, 0, 5), (0, 2, 0, 5), (0, 1, 1, 5), (0, 1, 0, 6)):
        assert numbers(keyed(*other)) != first


def test_without_a_key_draws_follow_the_global_generator():
    for results in (dict(), dict(sample_idx=3)):
        np.random.seed(0)
        a = numbers(results)
        assert numbers(results) != a  # another draw at each call
        np.random.seed(0)
        assert numbers(results) == a


def test_a_data_set_sample_without_a_key_warns_once(monkeypatch):
    """A plain sample_idx (no SampleSeedSampler, or a wrapper data set that
    dropped the key) is a warning, once per process, naming the setting; a
    sample without sample_idx (inference) is not."""
    module = importlib.import_module('mmidc.datasets.transforms.sample_rng')
    logged = []
    monkeypatch.setattr(module, '_warned', [])
    monkeypatch.setattr(module, 'print_log',
                        lambda msg, **kw: logged.append((msg, kw)))
    numbers(dict())
    assert logged == []
    numbers(dict(sample_idx=3), 'TokenizeCaptions.gt_captions')
    numbers(dict(sample_idx=4))
    numbers(keyed(0, 1, 0, 5))
    assert len(logged) == 1 and logged[0][1]['level'] == logging.WARNING
    assert logged[0][0].startswith('TokenizeCaptions.gt_captions: sample 3 '
                                   'has no seed key')
    assert "train_dataloader.sampler=dict(type='SampleSeedSampler'" \
        in logged[0][0]
