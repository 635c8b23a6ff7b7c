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


def test_easy_negatives_are_never_a_reference_of_the_pair(negatives_file):
    # the pair has two references; the file's third caption is the only
    # caption that is false of it, so every easy negative must be that one
    sample = TRANSFORMS.build(dict(type='SampleHardNegatives', kinds=['confuse'],
                                   negatives_file=negatives_file, num_negatives=6))
    pair = dict(gt_captions=['the cube is gone', 'the red cube moved'],
                caption_index=0, pair_id='3')
    for seed in range(20):
        np.random.seed(seed)
        out = sample(dict(pair))['negative_captions']
        assert out == ['there is no change'] * 6
    # a hard negative that is another reference of the pair is dropped too
    hard = TRANSFORMS.build(dict(type='SampleHardNegatives', kinds=['retrieve'],
                                 negatives_file=negatives_file, num_negatives=1))
    np.random.seed(0)
    assert hard(dict(gt_captions=['there is no change', 'the cube is gone'],
                     caption_index=0, pair_id='4'))['negative_captions'] == \
        ['the red cube moved']
    every = dict(gt_captions=list(NEGATIVES), caption_index=0, pair_id='5')
    with pytest.raises(ValueError, match='every caption of the file is a reference'):
        sample(every)


def test_six_negatives_by_default(negatives_file):
    sample = TRANSFORMS.build(dict(type='SampleHardNegatives',
                                   negatives_file=negatives_file))
    assert len(sample(results('the red cube moved'))['negative_captions']) == 6


def test_a_training_sample_draws_from_its_own_key(negatives_file):
    from mmidc.datasets.samplers import SampleIndex
    sample = TRANSFORMS.build(dict(type='SampleHardNegatives',
                                   negatives_file=negatives_file, num_negatives=4))

    def drawn(position, global_seed):
        np.random.seed(global_seed)
        return sample(dict(results('the red cube moved'), sample_idx=SampleIndex(
            0, (0, 1, 0, position))))['negative_captions']

    by_position = [drawn(p, 1) for p in range(20)]
    assert [drawn(p, 2) for p in range(20)] == by_position
    assert len({tuple(d) for d in by_position}) > 2  # shuffled, easy ones drawn


def test_a_file_lacking_training_captions_stops_the_build(tmp_path):
    """A file written before the captions changed stops the data set's build,
    not a step in the middle of an epoch."""
    from mmidc.datasets import ImagePairDataset
    from tests.helpers.pair_trees import make_my_pairs_tree
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root, {'train': 4})
    captions = {c for colour in ('red', 'blue', 'green', 'gray')
                for c in (f'the {colour} ball has moved',
                          f'a {colour} ball changed its place')}
    path = tmp_path / 'hard_negatives_train.json'
    negatives = {c: dict(retrieve=['x'], replace=[], confuse=[]) for c in captions}
    path.write_text(json.dumps(dict(meta={}, negatives=negatives)))
    pipeline = [dict(type='SampleHardNegatives', negatives_file=str(path))]
    ImagePairDataset('train.jsonl', root, pipeline=pipeline)  # all there
    del negatives['a gray ball changed its place']
    path.write_text(json.dumps(dict(meta={}, negatives=negatives)))
    with pytest.raises(ValueError, match=r"hard_negatives_train.json.* 1 of the 8 "
                       r"captions.*train.jsonl.*'a gray ball changed its place'"
                       r'.*make_hard_negatives.py'):
        ImagePairDataset('train.jsonl', root, pipeline=pipeline)
