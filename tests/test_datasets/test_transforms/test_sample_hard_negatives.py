import json

import numpy as np
import pytest

from mmidc.registry import TRANSFORMS

NEGATIVES = {
    'the red cube moved': dict(retrieve=['the blue cube moved'],
                               replace=['the red sphere moved', 'the red cube left'],
                               confuse=[]),
    'there is no change': dict(retrieve=['the cube is gone'], replace=[], confuse=[]),
    'the cube is gone': dict(retrieve=[], replace=[], confuse=[]),
}


@pytest.fixture
def negatives_file(tmp_path):
    path = tmp_path / 'hard_negatives_train.json'
    path.write_text(json.dumps(dict(meta={}, negatives=NEGATIVES)))
    return str(path)


def results(caption, index=0):
    return dict(gt_captions=[caption], caption_index=index, pair_id='7')


def test_takes_the_kinds_in_turn_then_easy_negatives(negatives_file):
    np.random.seed(0)
    sample = TRANSFORMS.build(dict(type='SampleHardNegatives',
                                   negatives_file=negatives_file, num_negatives=3))
    out = sample(results('the red cube moved'))['negative_captions']
    assert out[0] == 'the blue cube moved'  # retrieve, then replace, in turn
    assert set(out[1:]) == {'the red sphere moved', 'the red cube left'}
    few = sample(results('there is no change'))['negative_captions']
    assert few[0] == 'the cube is gone' and len(few) == 3
    assert 'there is no change' not in few  # easy negatives: other captions
    only = TRANSFORMS.build(dict(type='SampleHardNegatives', kinds=['replace'],
                                 negatives_file=negatives_file, num_negatives=2))
    assert set(only(results('the red cube moved'))['negative_captions']) == \
        {'the red sphere moved', 'the red cube left'}


def test_bad_input_names_the_file_and_caption(negatives_file):
    sample = TRANSFORMS.build(dict(type='SampleHardNegatives',
                                   negatives_file=negatives_file))
    with pytest.raises(KeyError, match="hard_negatives_train.json.*'a new caption'"):
        sample(results('a new caption'))
    with pytest.raises(KeyError, match='TokenizeCaptions'):
        sample(results('the red cube moved', index=-1))
    with pytest.raises(ValueError, match='unknown kinds'):
        TRANSFORMS.build(dict(type='SampleHardNegatives', kinds=['swap'],
                              negatives_file=negatives_file))
    missing = TRANSFORMS.build(dict(type='SampleHardNegatives',
                                    negatives_file=negatives_file + '.gone'))
    with pytest.raises(FileNotFoundError, match='make_hard_negatives.py'):
        missing(results('the red cube moved'))
