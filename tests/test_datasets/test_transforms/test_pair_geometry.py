"""ResizePair and PairRandomResizedCrop: both images always alike."""
import numpy as np
import pytest

from mmidc.datasets.transforms import swap_left_right
from mmidc.registry import TRANSFORMS


def _pair(shape1=(32, 48, 3), shape2=(32, 48, 3)):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, shape1, np.uint8)
    other = img.copy() if shape1 == shape2 else rng.integers(
        0, 256, shape2, np.uint8)
    return dict(img1=img, img2=other,
                gt_captions=['the cube left of the ball moved right'])


def test_resize_pair_to_one_size():
    resize = TRANSFORMS.build(dict(type='ResizePair', size=(20, 30)))
    results = resize(_pair((32, 48, 3), (50, 10, 3)))
    assert results['img1'].shape == results['img2'].shape == (20, 30, 3)
    assert results['img_shape'] == (20, 30)
    same = resize(_pair())
    np.testing.assert_array_equal(same['img1'], same['img2'])
    with pytest.raises(ValueError, match='ResizePair.size'):
        TRANSFORMS.build(dict(type='ResizePair', size=(0, 3)))


def test_random_resized_crop_identical_on_both_images():
    crop = TRANSFORMS.build(
        dict(type='PairRandomResizedCrop', size=16, scale=(0.3, 0.6)))
    boxes = set()
    for seed in range(5):
        np.random.seed(seed)
        results = crop(_pair())
        assert results['img1'].shape == (16, 16, 3)
        # Identical inputs stay identical: the same box was used.
        np.testing.assert_array_equal(results['img1'], results['img2'])
        assert not results['flipped']
        boxes.add(results['crop_box'])
    assert len(boxes) == 5  # random per pair


def test_random_resized_crop_same_region_on_different_sizes():
    pair = _pair()
    pair['img2'] = np.repeat(np.repeat(pair['img1'], 2, 0), 2, 1)  # 2x size
    np.random.seed(1)
    crop = TRANSFORMS.build(dict(type='PairRandomResizedCrop', size=12))
    results = crop(pair)
    diff = np.abs(results['img1'].astype(int) - results['img2'].astype(int))
    assert diff.mean() < 12  # same region, up to resampling


def test_flip_mirrors_both_and_swaps_left_right():
    np.random.seed(0)
    crop = TRANSFORMS.build(
        dict(type='PairRandomResizedCrop', size=(32, 48), scale=(1, 1),
             ratio=(1.5, 1.5), flip_prob=1.0))
    pair = _pair()
    results = crop(dict(pair, img1=pair['img1'].copy()))
    assert results['flipped']
    np.testing.assert_array_equal(results['img1'], results['img2'])
    np.testing.assert_array_equal(results['img1'], pair['img1'][:, ::-1])
    assert results['gt_captions'] == ['the cube right of the ball moved left']
    assert swap_left_right('leftover lefty left') == 'leftover lefty right'


def test_bad_crop_options():
    with pytest.raises(ValueError, match='scale'):
        TRANSFORMS.build(dict(type='PairRandomResizedCrop', size=8,
                              scale=(0.5, 1.5)))
    with pytest.raises(ValueError, match='flip_prob'):
        TRANSFORMS.build(dict(type='PairRandomResizedCrop', size=8,
                              flip_prob=2))
