"""SampleSeedSampler and SampleIndex: each visit of a training epoch carries
the key of its random draws to whichever process loads it, so the draws are
the same with 0 or 2 workers, persistent or not."""
import copy
import pickle

import numpy as np
import pytest
from mmengine.dataset import BaseDataset, ConcatDataset, DefaultSampler
from torch.utils.data import DataLoader

from mmidc.datasets.samplers import (SampleIndex, SampleSeedSampler,
                                     sample_seed_sampler)
from tests.helpers import REPO

CAPTIONS = [f'caption {k}' for k in range(6)]


class Pairs(BaseDataset):
    """Pairs of six captions each, drawn by TokenizeCaptions(mode='random')."""

    def __init__(self, n=8, **kwargs):
        self.n = n
        super().__init__(ann_file='', serialize_data=False, pipeline=[
            dict(type='TokenizeCaptions', context_length=8),
            dict(type='RandomDistractorBefore', prob=0.5)], **kwargs)

    def load_data_list(self):
        return [dict(pair_id=str(k), gt_captions=CAPTIONS, change_type='move',
                     img1_path='a', distractor_path='d') for k in range(self.n)]


def visit(results):
    return (int(results['sample_idx']), results['caption_index'],
            results['distractor_before'])


def draws(num_workers, epochs=2, dataset=None):
    """(index, caption drawn, swapped) of each visit, per epoch."""
    dataset = dataset or Pairs()
    sampler = SampleSeedSampler(
        dataset, dict(type='DefaultSampler', shuffle=True), seed=7)
    loader = DataLoader(dataset, batch_size=3, sampler=sampler,
                        collate_fn=lambda batch: [visit(r) for r in batch],
                        num_workers=num_workers,
                        persistent_workers=num_workers > 0)
    out = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        sampler.start_epoch(epoch)
        out.append([v for batch in loader for v in batch])
    return out


def test_draws_do_not_depend_on_the_workers():
    in_process = draws(num_workers=0)
    assert draws(num_workers=2) == in_process
    first, second = in_process
    assert sorted(v[0] for v in first) == list(range(8))
    assert len({v[1] for v in first + second}) > 3  # still random
    assert {v[2] for v in first + second} == {False, True}
    # another epoch: other draws for the same pairs
    assert sorted(first) != sorted(second)


def test_each_visit_has_its_own_key():
    """The same pair twice in a pass (RepeatByCaptionsSampler) is drawn
    for twice; keys follow the position over all ranks."""
    wrapper = SampleSeedSampler(None, [4, 4, 2], seed=0)
    wrapper.start_epoch(3)
    assert [i.seed_key for i in wrapper] == [(0, 3, 0, p) for p in range(3)]
    assert len(wrapper) == 3


def test_positions_interleave_over_ranks(monkeypatch):
    monkeypatch.setattr(sample_seed_sampler, 'get_dist_info', lambda: (1, 2))
    wrapper = SampleSeedSampler(None, [5, 6, 7], seed=0)
    assert [i.seed_key[3] for i in wrapper] == [1, 3, 5]


def test_a_resumed_epoch_skips_the_indices_trained_on(monkeypatch):
    """start_epoch's skip: the epoch's next pass leaves out this rank's first
    indices, the rest keep their positions; later passes are whole."""
    monkeypatch.setattr(sample_seed_sampler, 'get_dist_info', lambda: (1, 2))
    wrapper = SampleSeedSampler(None, [5, 6, 7, 8], seed=0)
    wrapper.start_epoch(2, skip=3)
    assert [(int(i), i.seed_key) for i in wrapper] == [(8, (0, 2, 0, 7))]
    assert [int(i) for i in wrapper] == [5, 6, 7, 8]  # the next pass


def test_the_index_keeps_its_key_through_the_data_set():
    index = SampleIndex(9, (1, 2, 0, 5))
    assert index == 9 and [10, 11, 12][index - 8] == 11
    for same in (pickle.loads(pickle.dumps(index)), copy.deepcopy(index)):
        assert same == 9 and same.seed_key == (1, 2, 0, 5)
    assert (index - 8).seed_key == index.seed_key  # ConcatDataset's offset
    assert (index % 4).seed_key == index.seed_key  # RepeatDataset's wrap
    assert (index - np.int64(8)).seed_key == index.seed_key
    assert not hasattr(index - 0.5, 'seed_key')
    # MMEngine's get_data_info puts it in the sample as sample_idx
    both = ConcatDataset([Pairs(n=4), Pairs(n=8)])
    results = both[SampleIndex(9, (1, 2, 0, 5))]
    assert results['sample_idx'] == 5
    assert results['sample_idx'].seed_key == (1, 2, 0, 5)
    again = both[SampleIndex(9, (1, 2, 0, 5))]
    assert visit(again)[1:] == visit(results)[1:]


def test_through_a_concatenated_data_set():
    both = ConcatDataset([Pairs(n=4), Pairs(n=4)])
    assert draws(2, epochs=1, dataset=both) == draws(0, epochs=1, dataset=both)


def test_declared_in_a_loader_config_it_builds_its_sampler():
    """As Runner.build_dataloader builds it: the data set and the runner's
    seed, passed on to the sampler it keys."""
    from mmidc.registry import DATA_SAMPLERS
    dataset = Pairs()
    wrapper = DATA_SAMPLERS.build(
        dict(type='SampleSeedSampler',
             sampler=dict(type='DefaultSampler', shuffle=True)),
        default_args=dict(dataset=dataset, seed=5))
    assert isinstance(wrapper.sampler, DefaultSampler)
    assert wrapper.sampler.dataset is dataset and wrapper.sampler.seed == 5
    order = [int(i) for i in wrapper]
    assert order == list(DefaultSampler(dataset, shuffle=True, seed=5))
    assert len(wrapper) == len(dataset)
    wrapper.set_epoch(1)  # the shuffle's, not the keys'
    assert wrapper.sampler.epoch == 1
    assert [i.seed_key[:3] for i in wrapper] == [(5, 0, 1)] * len(dataset)


def test_an_older_child_config_naming_its_sampler_is_a_config_error(tmp_path):
    """``sampler=dict(type='DefaultSampler')`` in a child of the data-set base
    merges into the base's SampleSeedSampler: an error naming the key and
    both fixes, not a TypeError of the sampler; with _delete_ it builds."""
    from mmengine.config import Config

    from mmidc.runtime.config_check import check_config
    base = REPO / 'configs/_base_/datasets/image_pair.py'
    child = tmp_path / 'child.py'
    child.write_text(f'_base_ = [{str(base)!r}]\ntrain_dataloader = dict('
                     "sampler=dict(type='DefaultSampler', shuffle=True))\n")
    with pytest.raises(ValueError, match=r"train_dataloader.sampler: type="
                       r"'DefaultSampler' keeps the key sampler=.*"
                       r"_delete_=True"):
        check_config(Config.fromfile(str(child)))
    child.write_text(child.read_text().replace('dict(type=', 'dict(_delete_=True, type='))
    cfg = Config.fromfile(str(child))
    check_config(cfg)
    assert cfg.train_dataloader.sampler == dict(type='DefaultSampler', shuffle=True)
