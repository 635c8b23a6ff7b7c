"""Hard negative captions: each kind differs from its positive and keeps its
form; word kinds and synonyms come from the captions themselves."""
import random

import numpy as np
import pytest
from tests.helpers.pair_trees import make_birds_to_words_tree

from mmidc.datasets import BirdsToWordsDataset
from mmidc.datasets.preparation.hard_negatives import (HardNegativeGenerator,
                                                       _nested)
from mmidc.text.caption_words import word_spans

SIZES = (('big', 'large'), ('small', 'tiny'))
COLOURS = ('red', 'blue', 'green', 'gray', 'cyan', 'purple')
MATERIALS = (('rubber', 'matte'), ('metal', 'shiny'))
SHAPES = (('cube', 'block'), ('sphere', 'ball'), ('cylinder', ))


def clevr_style_pairs(num_pairs=300, seed=0):
    """CLEVR-Change-style references: each pair names one object with
    synonyms varying between its references."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(num_pairs):
        size, material, shape = (rng.choice(SIZES), rng.choice(MATERIALS),
                                 rng.choice(SHAPES))
        colour, new = rng.sample(COLOURS, 2)
        kind = rng.choice(('color', 'add', 'drop'))
        refs = []
        for _ in range(4):
            obj = (f'{rng.choice(size)} {colour} {rng.choice(material)} '
                   f'{rng.choice(shape)}')
            if kind == 'color':
                refs.append(f'the {obj} changed to {new}')
            elif kind == 'add':
                refs.append(f'the {obj} has appeared')
            else:
                refs.append(f'the {obj} has disappeared')
        pairs.append(refs)
    pairs += [['there is no change', 'nothing has changed',
               'the scene remains the same']] * 50
    return pairs


def words(caption):
    return [w for _, _, w in word_spans(caption)]


def skeleton(caption):
    """Everything but the words: punctuation and spacing."""
    spans = word_spans(caption)
    out, last = [], 0
    for start, end, _ in spans:
        out.append(caption[last:start])
        last = end
    return out + [caption[last:]]


@pytest.fixture(scope='module')
def clevr_generator():
    return HardNegativeGenerator(clevr_style_pairs(), seed=0)


@pytest.fixture(scope='module')
def bird_generator(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('birds'))
    make_birds_to_words_tree(root, num_pairs=120, seed=3)
    ds = BirdsToWordsDataset(root, split='train')
    pairs = [ds.get_data_info(i)['gt_captions'] for i in range(len(ds))]
    return HardNegativeGenerator(pairs, min_similarity=0.5, seed=0)


def test_word_kinds_and_synonyms_come_from_the_captions(clevr_generator):
    g = clevr_generator
    assert set(g.kind_of['red']) >= {'blue', 'green', 'gray'}
    assert 'cube' in g.kind_of['sphere'] and 'red' not in g.kind_of['sphere']
    for a, b in (('big', 'large'), ('cube', 'block'), ('rubber', 'matte')):
        assert frozenset((a, b)) in g.synonyms, (a, b)
    for a, b in (('big', 'small'), ('red', 'blue'), ('rubber', 'metal')):
        assert frozenset((a, b)) not in g.synonyms, (a, b)
    assert 'the' not in g.content  # a function word: in most captions


@pytest.mark.parametrize('corpus', ['clevr', 'bird'])
def test_negatives_differ_and_keep_their_form(corpus, clevr_generator, bird_generator):
    g = clevr_generator if corpus == 'clevr' else bird_generator
    negatives = g.generate(num_retrieve=3, num_replace=3)
    counts = dict(retrieve=0, replace=0, confuse=0, several=0)
    for caption, kinds in negatives.items():
        ws = words(caption)
        for negative in kinds['replace']:  # 1-3 words of their kind swapped
            counts['replace'] += 1
            assert negative != caption
            assert skeleton(negative) == skeleton(caption)
            nws = words(negative)
            diff = [i for i, (a, b) in enumerate(zip(ws, nws)) if a != b]
            assert len(nws) == len(ws) and 1 <= len(diff) <= g.replace_words
            counts['several'] += len(diff) > 1
            for i in diff:
                old, new = ws[i], nws[i]
                assert new in g.kind_of[old]
                assert frozenset((old, new)) not in g.synonyms
        for negative in kinds['confuse']:  # the same words, roles swapped
            counts['confuse'] += 1
            assert negative != caption
            assert skeleton(negative) == skeleton(caption)
            assert sorted(words(negative)) == sorted(ws) or \
                {'animal1', 'animal2'} & set(ws)
        paraphrases = g.paraphrases(caption)
        for negative in kinds['replace'] + kinds['confuse']:
            assert negative not in paraphrases
        for negative in kinds['retrieve']:  # another caption of the corpus
            counts['retrieve'] += 1
            assert negative in g.index and negative not in paraphrases
            assert not _nested(g._content_words(caption), g._content_words(negative),
                               g.synonyms)
    assert min(counts.values()) > 20, counts


def test_confuse_swaps_roles_and_attribute_values(clevr_generator, bird_generator):
    assert clevr_generator.confuse('the small red rubber cube changed to blue') == \
        ['the small blue rubber cube changed to red']
    assert bird_generator.confuse('Animal1 has a longer beak than animal2.') == \
        ['Animal2 has a longer beak than animal1.']
    assert clevr_generator.confuse('there is no change') == []


def test_deterministic_for_a_seed():
    pairs = clevr_style_pairs(120, seed=1)
    a = HardNegativeGenerator(pairs, seed=5).generate()
    b = HardNegativeGenerator(pairs, seed=5).generate()
    c = HardNegativeGenerator(pairs, seed=6).generate()
    assert a == b
    assert a != c  # another seed picks other replacements
    assert {k: v['retrieve'] for k, v in a.items()} == \
        {k: v['retrieve'] for k, v in c.items()}


def test_no_captions_is_an_error():
    with pytest.raises(ValueError, match='no captions'):
        HardNegativeGenerator([[], []])
    np.testing.assert_equal(_nested(['a', 'b', 'c'], ['a', 'c']), True)
    np.testing.assert_equal(_nested(['a', 'b'], ['b', 'a']), False)
    np.testing.assert_equal(_nested(['x', 'b'], ['a', 'y', 'b'], {frozenset('xy')}), True)


# Birds-to-Words-like descriptions, each pair worded differently: too few
# repeated contexts for the strict word-kind test alone
SMALL_BIRD_PAIRS = [
    ['animal1 has a light pink breast while animal2 has a white breast.',
     'animal1 is pale pink on the chest, animal2 is white there.'],
    ['animal2 has a longer tail and a darker head than animal1.',
     'the tail of animal2 is longer and its head is darker.'],
    ['animal1 has a short black beak; animal2 has a long orange beak.',
     "animal2's beak is long and orange, animal1's is short and black."],
    ['animal1 has brown wings with white spots and animal2 has gray wings.',
     'animal2 has plain gray wings, animal1 has spotted brown wings.'],
    ['animal2 is larger with a red crown, animal1 has a yellow crown.',
     'animal1 is smaller and its crown is yellow rather than red.'],
    ['animal1 has a pale belly and animal2 has a streaked belly.',
     'the belly of animal2 is streaked while animal1 has a light belly.'],
    ['animal2 has a dark pink breast and a short tail.',
     'animal1 has a longer tail and a light breast.'],
    ['animal1 has black legs, animal2 has orange legs.',
     'the legs of animal2 are orange and those of animal1 are black.'],
    ['animal1 has a blue head and a white throat while animal2 has a brown head.',
     "animal2's head is brown, animal1's head is blue with a white throat."],
    ['animal2 has a thick beak and animal1 has a thin pointed beak.',
     'animal1 has a thinner, pointier beak than animal2.'],
    ['animal1 has yellow eyes, animal2 has dark eyes.',
     "the eyes of animal1 are yellow while animal2's eyes are dark."],
    ['animal1 has a red breast and gray back; animal2 has an orange breast.',
     "animal2's breast is orange and animal1's is red with a gray back."],
    ['animal2 has a pale pink beak and animal1 has a dark beak.',
     'the beak of animal1 is darker than the light pink beak of animal2.'],
]


def test_a_small_corpus_still_gets_replaced_negatives():
    negatives = HardNegativeGenerator(SMALL_BIRD_PAIRS, seed=0).generate()
    replaced = [n for v in negatives.values() for n in v['replace']]
    assert sum(1 for v in negatives.values() if v['replace']) >= len(negatives) // 2
    several = [n for c, v in negatives.items() for n in v['replace']
               if sum(a != b for a, b in zip(words(c), words(n))) > 1]
    assert len(replaced) > 20 and several
    # without the backoff, the strict test finds (almost) no word kinds
    strict = HardNegativeGenerator(SMALL_BIRD_PAIRS, backoff_similarity=0.8,
                                   replace_words=1, seed=0).generate()
    assert sum(len(v['replace']) for v in strict.values()) < len(replaced) // 5


def test_near_synonyms_are_never_swapped():
    pairs = [['animal1 has a light pink breast.'], ['animal1 has a pale pink breast.'],
             ['animal1 has a dark pink breast.'], ['animal1 has a light blue breast.'],
             ['animal1 has a pale blue breast.'], ['animal1 has a dark blue breast.']]
    given = HardNegativeGenerator(pairs, max_df=0.5, min_similarity=0.5, seed=0)
    assert frozenset(('light', 'pale')) in given.synonyms
    rng = random.Random(0)
    out = given.replace('animal1 has a light pink breast.', 10, rng)
    assert out and 'animal1 has a pale pink breast.' not in out
    assert 'animal1 has a dark pink breast.' in out
    # the same corpus without the given groups would swap them
    found_only = HardNegativeGenerator(pairs, max_df=0.5, min_similarity=0.5,
                                      synonyms=(), seed=0)
    assert 'animal1 has a pale pink breast.' in found_only.replace(
        'animal1 has a light pink breast.', 10, random.Random(0))


def test_no_negative_is_a_reference_of_the_same_pair():
    # 'the red cube' and 'the blue cube' both describe pair 0: swapping
    # red -> blue gives a true caption, not a negative
    pairs = [['the red cube moved', 'the blue cube moved'],
             ['the green cube moved'], ['the red sphere moved'],
             ['the blue sphere moved'], ['the green sphere moved']]
    g = HardNegativeGenerator(pairs, max_df=0.5, min_similarity=0.5,
                              synonym_threshold=0.5, synonyms=(),
                              replace_words=1, seed=0)
    assert frozenset(('red', 'blue')) not in g.synonyms
    out = g.replace('the red cube moved', 10, random.Random(0))
    assert 'the green cube moved' in out
    assert 'the blue cube moved' not in out
