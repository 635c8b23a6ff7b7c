"""ResizePair and the pair crop recipe: both images always alike."""
import numpy as np
import pytest

from mmidc.registry import TRANSFORMS


def _pair(shape1=(32, 48, 3), shape2=(32, 48, 3)):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, shape1, np.uint8)
    other = img.copy() if shape1 == shape2 else rng.integers(
        0, 256, shape2, np.uint8)
    return dict(img1=img, img2=other)


def test_resize_pair_to_one_size():
    resize = TRANSFORMS.build(dict(type='ResizePair', size=(20, 30)))
    results = resize(_pair((32, 48, 3), (50, 10, 3)))
    assert results['img1'].shape == results['img2'].shape == (20, 30, 3)
    assert results['img_shape'] == (20, 30)
    same = resize(_pair())
    np.testing.assert_array_equal(same['img1'], same['img2'])
    with pytest.raises(ValueError, match='ResizePair.size'):
        TRANSFORMS.build(dict(type='ResizePair', size=(0, 3)))


def test_resize_pair_equals_the_cache_writer_and_mmcv_resize():
    """ResizePair is the function the pre-resized cache is written with, and
    gives the pixels of mmcv's Resize (PIL bicubic) under mmcv's broadcaster;
    an image already at the size passes through untouched (the cached path)."""
    from mmcv.transforms import TransformBroadcaster

    from mmidc.datasets import resize_rgb
    pair = _pair((32, 48, 3), (50, 10, 3))
    ours = TRANSFORMS.build(dict(type='ResizePair', size=(20, 30)))(dict(pair))
    broadcast = TransformBroadcaster(
        transforms=[dict(type='mmcv.Resize', scale=(30, 20), keep_ratio=False,
                         backend='pillow', interpolation='bicubic')],
        mapping={'img': ['img1', 'img2']}, auto_remap=True)(dict(pair))
    for key in ('img1', 'img2'):
        np.testing.assert_array_equal(ours[key], resize_rgb(pair[key], (20, 30)))
        np.testing.assert_array_equal(ours[key], broadcast[key])
    cached = dict(img1=ours['img1'], img2=ours['img2'])
    again = TRANSFORMS.build(dict(type='ResizePair', size=(20, 30)))(cached)
    assert again['img1'] is ours['img1']


def test_same_random_crop_on_both_images_with_the_broadcaster():
    """The pair augmentation of docs/datasets.md: MMPretrain's RandomCrop
    under mmcv's TransformBroadcaster with shared random parameters crops
    the same box from both images."""
    crop = TRANSFORMS.build(dict(
        type='TransformBroadcaster', mapping={'img': ['img1', 'img2']},
        auto_remap=True, share_random_params=True,
        transforms=[dict(type='mmpretrain.RandomCrop', crop_size=(16, 24))]))
    boxes = set()
    for seed in range(5):
        np.random.seed(seed)
        pair = _pair()
        pair['img2'] = 255 - pair['img1']
        results = crop(pair)
        assert results['img1'].shape == (16, 24, 3)
        # the same box: the second image is still the negative of the first
        np.testing.assert_array_equal(results['img2'], 255 - results['img1'])
        boxes.add(results['img1'].tobytes())
    assert len(boxes) == 5  # random per pair
