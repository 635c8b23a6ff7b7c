"""mmidc.runtime.loader_setup: 'auto' loader settings and the image-cache
switch."""
import os.path as osp

import pytest
from mmengine.config import Config

from mmidc.runtime import loader_setup
from mmidc.runtime.loader_setup import (auto_num_workers, auto_pin_memory,
                                        resolve_loader_defaults,
                                        use_image_cache)
from tests.helpers import pair_trees


def test_auto_workers_share_the_cores(monkeypatch):
    monkeypatch.setattr(loader_setup, 'available_cores', lambda: 16)
    assert auto_num_workers(1) == 15
    assert auto_num_workers(8) == 1  # 2 cores per process, one for itself
    assert auto_num_workers(32) == 1
    monkeypatch.setenv('LOCAL_WORLD_SIZE', '4')
    assert auto_num_workers() == 3
    monkeypatch.setattr(loader_setup, 'available_cores', lambda: 64)
    assert auto_num_workers(1) == loader_setup.MAX_AUTO_WORKERS


def test_resolve_loader_defaults(monkeypatch):
    monkeypatch.setattr(loader_setup, 'available_cores', lambda: 6)
    monkeypatch.setattr(loader_setup, '_cuda_available', lambda: True)
    monkeypatch.delenv('LOCAL_WORLD_SIZE', raising=False)
    cfg = Config(dict(
        train_dataloader=dict(num_workers='auto', pin_memory='auto',
                              persistent_workers=True),
        val_dataloader=dict(num_workers=0, pin_memory=False,
                            persistent_workers=True),
        test_dataloader=None))
    resolve_loader_defaults(cfg)
    assert cfg.train_dataloader == dict(num_workers=5, pin_memory=True,
                                        persistent_workers=True)
    # no workers: PyTorch refuses persistent ones
    assert cfg.val_dataloader.persistent_workers is False
    monkeypatch.setattr(loader_setup, '_cuda_available', lambda: False)
    cfg = Config(dict(train_dataloader=dict(pin_memory='auto')))
    resolve_loader_defaults(cfg)
    assert cfg.train_dataloader.pin_memory is False


def test_base_configs_use_the_defaults():
    cfg = Config.fromfile(osp.join(osp.dirname(__file__), '..', '..', 'configs',
                                   '_base_', 'datasets', 'clevr_change.py'))
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        assert cfg[key].num_workers == 'auto'
        assert cfg[key].pin_memory == 'auto'
    resolve_loader_defaults(cfg)
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        assert cfg[key].num_workers == auto_num_workers()
        assert cfg[key].pin_memory is auto_pin_memory()
        assert cfg[key].collate_fn.type == 'idc_collate'


def test_a_base_replaces_the_data_set_it_inherits():
    """A data-set base over image_pair.py reads its reader alone: nothing
    of ImagePairDataset's settings (ann_file) is left in its loaders."""
    cfg = Config.fromfile(osp.join(osp.dirname(__file__), '..', '..', 'configs',
                                   '_base_', 'datasets', 'levir_cc.py'))
    for key, split in (('train_dataloader', 'train'),
                       ('val_dataloader', 'val'), ('test_dataloader', 'test')):
        assert dict(cfg[key].dataset, pipeline=None) == dict(
            type='LEVIRCCDataset', data_root='{data_root}', split=split,
            pipeline=None)


def _pipeline(first):
    return [first, dict(type='ResizePair', size=(24, 20)),
            dict(type='PackIDCInputs')]


@pytest.fixture
def fresh_clevr_root(tmp_path):
    root = str(tmp_path / 'clevr_change')
    pair_trees.make_clevr_change_tree(root)
    return root


def test_image_cache_switch(fresh_clevr_root, monkeypatch):
    dataset = dict(type='CLEVRChangeDataset', data_root=fresh_clevr_root,
                   split='train', pipeline=_pipeline(dict(type='LoadImagePair')))
    crop = dict(type='CLEVRChangeDataset', data_root=fresh_clevr_root, split='val',
                pipeline=[dict(type='LoadImagePair'),
                          dict(type='PairRandomResizedCrop', size=24),
                          dict(type='PackIDCInputs')])
    cfg = Config(dict(train_dataloader=dict(
        dataset=dict(type='RepeatDataset', times=2, dataset=dataset)),
        val_dataloader=dict(dataset=crop)))
    switched = use_image_cache(cfg, workers=1)
    cache = osp.join(fresh_clevr_root, 'cache_24x20')
    assert switched == [('train_dataloader', cache)]
    load = cfg.train_dataloader.dataset.dataset.pipeline[0]
    assert load == dict(type='LoadImagePair', cache_dir=cache, cache_size=(24, 20))
    assert osp.isfile(osp.join(cache, 'CLEVRChangeDataset_train.json'))
    assert cfg.val_dataloader.dataset.pipeline[0] == dict(type='LoadImagePair')  # crops
    # a second call finds the shard current and builds nothing
    monkeypatch.setattr(loader_setup, 'build_pair_image_cache',
                        lambda *a, **k: pytest.fail('rebuilt a current cache'))
    assert use_image_cache(cfg, workers=1) == [('train_dataloader', cache)]
