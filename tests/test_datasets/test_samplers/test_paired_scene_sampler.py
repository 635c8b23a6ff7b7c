"""PairedSceneSampler: every batch holds each of its scenes' change and
no-change pair, one to one."""
import pytest
from mmengine.config import Config
from tests.helpers.pair_trees import make_clevr_change_tree
from torch.utils.data import DataLoader

from mmidc.datasets import CLEVRChangeDataset
from mmidc.datasets.samplers import group_sampler
from mmidc.registry import DATA_SAMPLERS
from mmidc.runtime.config_check import check_config

NUM_SCENES = 10


@pytest.fixture(scope='module')
def dataset(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('clevr_10'))
    make_clevr_change_tree(root, splits={'train': list(range(NUM_SCENES)),
                                         'val': [], 'test': []})
    return CLEVRChangeDataset(root, split='train')


def scene_of(info):
    return info['pair_id'][:6]


def build(dataset, **kwargs):
    return DATA_SAMPLERS.build(dict(type='PairedSceneSampler',
                                    dataset=dataset, **kwargs))


def test_batches_hold_both_pairs_of_each_scene(dataset):
    sampler = build(dataset, seed=0)
    assert len(sampler) == 2 * NUM_SCENES
    loader = DataLoader(dataset, batch_size=4, sampler=sampler,
                        collate_fn=lambda batch: batch)
    seen = []
    for batch in loader:
        scenes = {scene_of(info) for info in batch}
        assert len(batch) == 2 * len(scenes)  # whole scenes only
        types = [info['change_type'] == 'none' for info in batch]
        assert sum(types) == len(scenes)  # one no-change pair per scene
        for scene in scenes:
            ids = sorted(i['pair_id'] for i in batch if scene_of(i) == scene)
            assert ids == [f'{scene}.png', f'{scene}.png_n']
        seen += [info['pair_id'] for info in batch]
    assert sorted(seen) == sorted(dataset.get_data_info(i)['pair_id']
                                  for i in range(len(dataset)))


def test_scene_order_is_shuffled_per_epoch(dataset):
    sampler = build(dataset, seed=0)
    first = list(sampler)
    assert list(sampler) == first  # same epoch, same order
    sampler.set_epoch(1)
    second = list(sampler)
    assert second != first and sorted(second) == sorted(first)
    assert list(build(dataset, shuffle=False)) == list(range(len(dataset)))


def test_ranks_get_whole_disjoint_scenes(dataset, monkeypatch):
    per_rank = []
    for rank in range(3):
        monkeypatch.setattr(group_sampler, 'get_dist_info',
                            lambda rank=rank: (rank, 3))
        indices = list(build(dataset, seed=0, round_up=False))
        infos = [dataset.get_data_info(i) for i in indices]
        assert [scene_of(i) for i in infos[0::2]] == \
            [scene_of(i) for i in infos[1::2]]
        per_rank.append({scene_of(i) for i in infos})
    assert sum(len(s) for s in per_rank) == NUM_SCENES
    assert set.union(*per_rank) == {f'{s:06d}' for s in range(NUM_SCENES)}
    # round_up: every rank gets ceil(10 / 3) = 4 scenes
    monkeypatch.setattr(group_sampler, 'get_dist_info',
                        lambda: (2, 3))
    assert len(list(build(dataset, seed=0))) == 8


def test_scenes_without_a_no_change_pair_are_an_error(dataset):
    change_only = CLEVRChangeDataset(dataset.data_root, with_no_change=False)
    with pytest.raises(ValueError, match='scene "000000.png" has no '
                       'no-change pair'):
        build(change_only)


def test_odd_batch_size_is_a_config_error():
    cfg = Config(dict(train_dataloader=dict(
        batch_size=15, sampler=dict(type='PairedSceneSampler'),
        dataset=dict(type='CLEVRChangeDataset'))))
    with pytest.raises(ValueError, match='batch_size=15 must be even'):
        check_config(cfg)
    cfg.train_dataloader.batch_size = 16
    check_config(cfg)
    cfg.train_dataloader.sampler = dict(  # as the shipped configs declare it
        type='SampleSeedSampler', sampler=dict(type='PairedSceneSampler'))
    check_config(cfg)
    cfg.train_dataloader.batch_size = 15
    with pytest.raises(ValueError, match='batch_size=15 must be even'):
        check_config(cfg)


def test_paired_scene_loss_needs_the_sampler():
    cfg = Config(dict(
        model=dict(type='CLIP4IDCCaptioner',
                   head=dict(loss=dict(type='PairedSceneCrossEntropyLoss'))),
        train_dataloader=dict(batch_size=16, dataset=dict(type='CLEVRChangeDataset'),
                              sampler=dict(type='DefaultSampler'))))
    with pytest.raises(ValueError, match="needs train_dataloader.sampler"):
        check_config(cfg)
    cfg.train_dataloader.sampler.type = 'PairedSceneSampler'
    check_config(cfg)
    cfg.model.head.loss.type = 'CaptionCrossEntropyLoss'
    cfg.train_dataloader.sampler.type = 'DefaultSampler'
    check_config(cfg)
