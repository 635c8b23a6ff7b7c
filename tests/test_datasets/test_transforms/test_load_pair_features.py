"""LoadPairFeatures: the cached features of both images in place of the
images."""
import numpy as np
import pytest

from mmidc.datasets import write_feature_shard
from mmidc.registry import TRANSFORMS


def test_loads_both_images_features(tmp_path):
    root = tmp_path / 'data'
    paths = [str(root / f'{i}.png') for i in range(2)]
    features = np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4)
    cache_dir = str(tmp_path / 'features')
    write_feature_shard(cache_dir, 'train', str(root), paths, features, 'test')
    load = TRANSFORMS.build(dict(type='LoadPairFeatures', cache_dir=cache_dir))
    results = load(dict(img1_path=paths[1], img2_path=paths[0]))
    np.testing.assert_array_equal(results['img1'], features[1])
    np.testing.assert_array_equal(results['img2'], features[0])
    assert results['ori_shape'] == ((2, 3), (2, 3))
    assert cache_dir in repr(load)
    with pytest.raises(KeyError, match='missing.png'):
        load(dict(img1_path=paths[0], img2_path=str(root / 'missing.png')))
