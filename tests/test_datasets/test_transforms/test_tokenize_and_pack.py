import numpy as np
import pytest
import torch
from mmpretrain.structures import DataSample

from mmidc.registry import TRANSFORMS

SOT, EOT = 49406, 49407
CAPTIONS = ['the red cube moved', 'a cube changed its location',
            'the big red rubber cube behind the small cyan sphere is in a '
            'different location than it was before the camera moved']


def test_modes_and_shapes():
    all_mode = TRANSFORMS.build(dict(type='TokenizeCaptions', mode='all'))
    tokens = all_mode(dict(gt_captions=CAPTIONS))['text_tokens']
    assert tokens.dtype == torch.long and tokens.shape == (3, 32)
    assert (tokens[:, 0] == SOT).all()
    first = TRANSFORMS.build(dict(type='TokenizeCaptions', mode='first',
                                  context_length=16))
    results = first(dict(gt_captions=CAPTIONS))
    assert results['text_tokens'].shape == (16, )
    assert results['caption_index'] == 0


def test_random_mode_samples_every_caption():
    tokenize = TRANSFORMS.build(dict(type='TokenizeCaptions'))
    np.random.seed(0)
    seen = {tokenize(dict(gt_captions=CAPTIONS))['caption_index']
            for _ in range(40)}
    assert seen == {0, 1, 2}


def test_truncation_keeps_end_of_text():
    tokenize = TRANSFORMS.build(
        dict(type='TokenizeCaptions', mode='all', context_length=8))
    tokens = tokenize(dict(gt_captions=CAPTIONS))['text_tokens']
    assert tokens[2, -1] == EOT  # truncated: EOT forced last
    short = tokens[0].tolist()
    assert short[short.index(EOT) + 1:] == [0] * (7 - short.index(EOT))


def test_bad_options():
    with pytest.raises(ValueError, match='mode'):
        TRANSFORMS.build(dict(type='TokenizeCaptions', mode='longest'))
    with pytest.raises(ValueError, match='context_length'):
        TRANSFORMS.build(dict(type='TokenizeCaptions', context_length=1))


def test_pack_contract():
    rng = np.random.default_rng(0)
    img1 = rng.integers(0, 256, (8, 10, 3), np.uint8)
    img2 = rng.integers(0, 256, (8, 10, 3), np.uint8)
    results = dict(img1=img1, img2=img2, pair_id='000001.png',
                   change_type='move', gt_captions=CAPTIONS[:2],
                   text_tokens=torch.ones(32, dtype=torch.long))
    packed = TRANSFORMS.build(dict(type='PackIDCInputs'))(results)
    inputs, sample = packed['inputs'], packed['data_samples']
    assert inputs.dtype == torch.uint8 and inputs.shape == (2, 3, 8, 10)
    assert torch.equal(inputs[1], torch.from_numpy(img2).permute(2, 0, 1))
    assert isinstance(sample, DataSample)
    assert sample.pair_id == '000001.png'
    assert sample.change_type == 'move'
    assert sample.gt_captions == CAPTIONS[:2]
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


def test_one_tokenizer_for_pipeline_vocabulary_and_inference():
    from mmidc.apis import idc_retrieval_inferencer
    from mmidc.datasets.transforms import tokenize_captions
    from mmidc import text
    assert tokenize_captions.clip_tokenizer is text.clip_tokenizer
    assert idc_retrieval_inferencer.clip_tokenizer is text.clip_tokenizer
    tokens = TRANSFORMS.build(dict(type='TokenizeCaptions', mode='first'))(
        dict(gt_captions=['the red cube moved']))['text_tokens']
    assert text.CaptionVocab().decode(tokens) == 'the red cube moved'
