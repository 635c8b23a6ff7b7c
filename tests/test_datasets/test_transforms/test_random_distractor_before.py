"""RandomDistractorBefore: the before image becomes the distractor render
with the configured probability; the captions stay."""
import os.path as osp

import numpy as np
import pytest

from mmidc.datasets import CLEVRChangeDataset, read_rgb
from mmidc.registry import TRANSFORMS

CHANGE = dict(img1_path='images/a.png', img2_path='sc_images/a.png',
              distractor_path='nsc_images/a.png', pair_id='000001.png',
              change_type='color', gt_captions=['the cube turned red'])


@pytest.mark.parametrize('prob', [0.5, 0.2])
def test_swaps_with_the_configured_probability(prob):
    transform = TRANSFORMS.build(dict(type='RandomDistractorBefore',
                                      prob=prob))
    np.random.seed(0)
    n, swaps = 4000, 0
    for _ in range(n):
        out = transform(dict(CHANGE, gt_captions=list(CHANGE['gt_captions'])))
        assert out['img1_path'] == (CHANGE['distractor_path']
                                    if out['distractor_before'] else
                                    CHANGE['img1_path'])
        assert out['img2_path'] == CHANGE['img2_path']
        assert out['gt_captions'] == CHANGE['gt_captions']  # same caption
        assert out['pair_id'] == CHANGE['pair_id']
        swaps += out['distractor_before']
    # binomial sd <= 0.008: 5 sd either way
    assert abs(swaps / n - prob) < 0.04


@pytest.mark.parametrize('prob, swapped', [(0.0, False), (1.0, True)])
def test_never_and_always(prob, swapped):
    transform = TRANSFORMS.build(dict(type='RandomDistractorBefore',
                                      prob=prob))
    for _ in range(50):
        assert transform(dict(CHANGE))['distractor_before'] is swapped


def test_no_change_pairs_pass_and_missing_path_is_named():
    transform = TRANSFORMS.build(dict(type='RandomDistractorBefore',
                                      prob=1.0))
    no_change = dict(CHANGE, change_type='none', pair_id='000001.png_n')
    del no_change['distractor_path']
    assert transform(dict(no_change))['img1_path'] == CHANGE['img1_path']
    without = dict(CHANGE)
    del without['distractor_path']
    with pytest.raises(KeyError, match='000001.png.*with_distractor_path'):
        transform(without)
    with pytest.raises(ValueError, match='prob'):
        TRANSFORMS.build(dict(type='RandomDistractorBefore', prob=1.5))


def test_loads_the_distractor_image_with_the_change_caption(clevr_root):
    dataset = CLEVRChangeDataset(
        clevr_root, split='train', with_no_change=False,
        with_distractor_path=True,
        pipeline=[dict(type='RandomDistractorBefore', prob=1.0),
                  dict(type='LoadImagePair'), dict(type='PackIDCInputs')])
    sample = dataset[1]
    info = dataset.get_data_info(1)
    nsc = read_rgb(osp.join(clevr_root, 'nsc_images',
                            'CLEVR_nonsemantic_000001.png'))
    sc = read_rgb(osp.join(clevr_root, 'sc_images',
                           'CLEVR_semantic_000001.png'))
    inputs = sample['inputs'].permute(0, 2, 3, 1).numpy()  # [2, H, W, 3]
    np.testing.assert_array_equal(inputs[0], nsc)
    np.testing.assert_array_equal(inputs[1], sc)
    assert sample['data_samples'].gt_captions == info['gt_captions']
    assert sample['data_samples'].change_type != 'none'


def test_a_training_sample_draws_from_its_own_key():
    from mmidc.datasets.samplers import SampleIndex
    transform = TRANSFORMS.build(dict(type='RandomDistractorBefore'))

    def swapped(position, global_seed):
        np.random.seed(global_seed)
        return transform(dict(CHANGE, sample_idx=SampleIndex(
            0, (0, 1, 0, position))))['distractor_before']

    by_position = [swapped(p, 1) for p in range(40)]
    assert [swapped(p, 2) for p in range(40)] == by_position
    assert 5 < sum(by_position) < 35
