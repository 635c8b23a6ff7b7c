"""TokenizeCaptions: CLIP tokens of one, a random or every caption."""
import numpy as np
import pytest
import torch

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


def test_one_tokenizer_for_pipeline_vocabulary_and_inference():
    from mmidc.apis import idc_retrieval_inferencer
    from mmidc.datasets.transforms import tokenize_captions
    from mmidc import text
    assert tokenize_captions.clip_tokenizer is text.clip_tokenizer
    assert idc_retrieval_inferencer.clip_tokenizer is text.clip_tokenizer
    tokens = TRANSFORMS.build(dict(type='TokenizeCaptions', mode='first'))(
        dict(gt_captions=['the red cube moved']))['text_tokens']
    assert text.CaptionVocab().decode(tokens) == 'the red cube moved'


def test_a_training_sample_draws_from_its_own_key():
    """In a training loader the draw is a function of the visit's key
    (seed, epoch, pass, position), not of the process's random state."""
    from mmidc.datasets.samplers import SampleIndex
    tokenize = TRANSFORMS.build(dict(type='TokenizeCaptions'))

    def drawn(key, global_seed):
        np.random.seed(global_seed)
        return tokenize(dict(gt_captions=CAPTIONS,
                             sample_idx=SampleIndex(0, key)))['caption_index']

    for position in range(5):
        key = (0, 1, 0, position)
        assert drawn(key, 1) == drawn(key, 2)
    assert {drawn((0, 1, 0, p), 0) for p in range(40)} == {0, 1, 2}
