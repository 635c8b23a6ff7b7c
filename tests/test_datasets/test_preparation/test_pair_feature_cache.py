"""mmidc.datasets.preparation.pair_feature_cache: a written shard reads back per image
path (float16 on disk, float32 out); what is missing or inconsistent is
named."""
import os.path as osp
import pickle

import numpy as np
import pytest

from mmidc.datasets import PairFeatureCache, write_feature_shard


def _shard(tmp_path, name='train', shape=(2, 3, 4), count=3, seed=0):
    root = tmp_path / 'data'
    paths = [str(root / 'images' / f'{name}_{i}.png') for i in range(count)]
    features = np.random.default_rng(seed).standard_normal(
        (count, ) + shape).astype(np.float32)
    cache_dir = str(tmp_path / 'features')
    write_feature_shard(cache_dir, name, str(root), paths, features, 'test')
    return cache_dir, paths, features


def test_features_read_back_per_path(tmp_path):
    cache_dir, paths, features = _shard(tmp_path)
    cache = PairFeatureCache(cache_dir)
    for path, expected in zip(paths, features):
        got = cache.get(path)
        assert got.dtype == np.float32 and got.shape == (2, 3, 4)
        np.testing.assert_array_equal(got, expected.astype(np.float16))
    assert cache.shape == (2, 3, 4)
    with pytest.raises(KeyError, match='other.png'):
        cache.get(osp.join(osp.dirname(paths[0]), 'other.png'))
    # the memmaps are reopened after pickling (a loader worker)
    again = pickle.loads(pickle.dumps(cache))
    assert again._rows is None
    np.testing.assert_array_equal(again.get(paths[1]), cache.get(paths[1]))


def test_bad_shards_are_named(tmp_path):
    with pytest.raises(ValueError, match=r'\[N=2'):
        write_feature_shard(str(tmp_path / 'f'), 'x', str(tmp_path), ['a', 'b'],
                            np.zeros((3, 1, 1, 1)), 'test')
    with pytest.raises(FileNotFoundError, match='extract_pair_features'):
        PairFeatureCache(str(tmp_path / 'missing')).get('a.png')
    empty = tmp_path / 'empty'
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match='no feature cache shard'):
        PairFeatureCache(str(empty)).get('a.png')
    cache_dir, paths, _ = _shard(tmp_path)
    _shard(tmp_path, name='val', shape=(2, 3, 5))
    with pytest.raises(ValueError, match='features of shape'):
        PairFeatureCache(cache_dir).get(paths[0])


def test_features_of_images_outside_the_data_root(tmp_path):
    """Your own pairs may name their images by absolute paths elsewhere."""
    paths = [str(tmp_path / 'elsewhere' / f'{i}.png') for i in range(2)]
    features = np.ones((2, 1, 1, 4), np.float32) * np.arange(2)[:, None, None, None]
    cache_dir = str(tmp_path / 'data' / 'features')
    write_feature_shard(cache_dir, 'train', str(tmp_path / 'data'), paths, features, 'test')
    cache = PairFeatureCache(cache_dir)
    np.testing.assert_array_equal(cache.get(paths[1]), features[1])
