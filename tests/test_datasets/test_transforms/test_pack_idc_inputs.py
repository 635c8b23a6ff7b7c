"""PackIDCInputs: the pair as one uint8 [2, 3, H, W] tensor and its
DataSample."""
import numpy as np
import pytest
import torch
from mmpretrain.structures import DataSample

from mmidc.registry import TRANSFORMS

CAPTIONS = ['the red cube moved', 'a cube changed its location']


def test_pack_contract():
    rng = np.random.default_rng(0)
    img1 = rng.integers(0, 256, (8, 10, 3), np.uint8)
    img2 = rng.integers(0, 256, (8, 10, 3), np.uint8)
    results = dict(img1=img1, img2=img2, pair_id='000001.png',
                   change_type='move', gt_captions=CAPTIONS,
                   text_tokens=torch.ones(32, dtype=torch.long))
    packed = TRANSFORMS.build(dict(type='PackIDCInputs'))(results)
    inputs, sample = packed['inputs'], packed['data_samples']
    assert inputs.dtype == torch.uint8 and inputs.shape == (2, 3, 8, 10)
    assert torch.equal(inputs[1], torch.from_numpy(img2).permute(2, 0, 1))
    assert isinstance(sample, DataSample)
    assert sample.pair_id == '000001.png'
    assert sample.change_type == 'move'
    assert sample.gt_captions == CAPTIONS
    assert 'text_tokens' in sample.keys()  # a data field: moves to device
    assert torch.equal(sample.text_tokens, results['text_tokens'])


def test_pack_errors():
    pack = TRANSFORMS.build(dict(type='PackIDCInputs'))
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(ValueError, match='ResizePair'):
        pack(dict(img1=img, img2=np.zeros((4, 5, 3), np.uint8),
                  pair_id='x', change_type='none', gt_captions=['a']))
    with pytest.raises(KeyError, match='pair_id'):
        pack(dict(img1=img, img2=img, change_type='none', gt_captions=['a']))
