"""Bad annotations, for every data set: each gives a ValueError naming the
file and the key or record, at build time, never wrong data.

Cases: a string where a caption list belongs (it was split into
characters), an empty split, a file that is not UTF-8, wrongly typed fields,
and an image path directly under ``/`` (it was looked up in the current
folder).
"""
import json
import os.path as osp
import re

import pytest

from mmidc.datasets.birds_to_words import BirdsToWordsDataset
from mmidc.datasets.clevr_change import CLEVRChangeDataset
from mmidc.datasets.image_editing_request import ImageEditingRequestDataset
from mmidc.datasets.image_pair_dataset import (ImagePairDataset,
                                               check_images_exist)
from mmidc.datasets.spot_the_diff import SpotTheDiffDataset
from tests.helpers import pair_trees


def _generic(root, ann='pairs.json'):
    return ImagePairDataset(ann_file=ann, data_root=root,
                            data_prefix=dict(img_path='imgs'))


#: data set -> (make its tree, build its train split, its annotation file)
DATA_SETS = {
    'clevr_change': (pair_trees.make_clevr_change_tree,
                     lambda root: CLEVRChangeDataset(root, 'train'),
                     'change_captions.json'),
    'spot_the_diff': (pair_trees.make_spot_the_diff_tree,
                      lambda root: SpotTheDiffDataset(root, 'train'),
                      'annotations/train.json'),
    'image_editing_request': (pair_trees.make_ier_tree,
                              lambda root: ImageEditingRequestDataset(
                                  root, 'train'), 'train.json'),
    'birds_to_words': (pair_trees.make_birds_to_words_tree,
                       lambda root: BirdsToWordsDataset(root, 'train'),
                       'birds-to-words-v1.0.tsv'),
    'own_pairs_json': (pair_trees.make_generic_tree, _generic, 'pairs.json'),
    'own_pairs_jsonl': (lambda root: pair_trees.make_generic_tree(
        root, ann_name='pairs.jsonl'),
                        lambda root: _generic(root, 'pairs.jsonl'),
                        'pairs.jsonl'),
}


@pytest.fixture(params=sorted(DATA_SETS))
def data_set(request, tmp_path):
    """``(root, build, annotation file)`` of a fresh tree of each set."""
    make, build, ann = DATA_SETS[request.param]
    root = str(tmp_path / request.param)
    make(root)
    build(root)  # the intact tree loads
    return root, build, osp.join(root, ann)


def _edit_json(path, edit):
    content = pair_trees.read_json(path)
    edit(content)
    if path.endswith('.jsonl'):
        pair_trees.write_records(path, content)
    else:
        pair_trees.write_json(path, content)


def _read_records(path):
    if path.endswith('.jsonl'):
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    return pair_trees.read_json(path)


def _edit_records(path, edit):
    records = _read_records(path)
    edit(records)
    pair_trees.write_records(path, records)


def _raises(build, root, *parts):
    """``build(root)`` raises a ValueError whose message holds ``parts``."""
    with pytest.raises(ValueError) as err:
        build(root)
    for part in parts:
        assert part in str(err.value), (part, str(err.value))
    return str(err.value)


# -- a string where a caption list belongs ----------------------------------
STRING_CAPTIONS = {
    # data set: (file, edit, key named)
    'clevr_change': ('change_captions.json',
                     lambda c: c.update({'CLEVR_default_000001.png': 'moved'}),
                     'CLEVR_default_000001.png'),
    'spot_the_diff': ('annotations/train.json',
                      lambda r: r[1].update(sentences='the bike is gone'),
                      'sentences'),
    'image_editing_request': ('train.json',
                              lambda r: r[0].update(sents='brighten it'),
                              'sents'),
    'own_pairs': ('pairs.json', lambda r: r[2].update(captions='moved'),
                  'captions'),
}


@pytest.mark.parametrize('name', sorted(STRING_CAPTIONS))
def test_a_caption_string_is_not_split_into_characters(name, tmp_path):
    make, build, _ = DATA_SETS['own_pairs_json' if name == 'own_pairs'
                               else name]
    root = str(tmp_path)
    make(root)
    file, edit, key = STRING_CAPTIONS[name]
    _edit_json(osp.join(root, file), edit)
    message = _raises(build, root, osp.join(root, file), f'"{key}"')
    assert 'is a string' in message and 'list of strings' in message


def test_caption_items_must_be_strings(tmp_path):
    root = str(tmp_path)
    pair_trees.make_clevr_change_tree(root)
    _edit_json(osp.join(root, 'no_change_captions.json'),
               lambda c: c.update({'CLEVR_default_000002.png': ['ok', 7]}))
    _raises(lambda r: CLEVRChangeDataset(r, 'train'), root,
            'no_change_captions.json', 'CLEVR_default_000002.png', 'item 1')


# -- an empty split -----------------------------------------------------------
def _empty_split(name, root):
    """Empty the val split of ``name``'s tree; returns what the error names."""
    if name == 'clevr_change':
        splits = dict(pair_trees.CLEVR_SPLITS, val=[])
        pair_trees.make_clevr_change_tree(root, splits=splits)
        return (lambda r: CLEVRChangeDataset(r, 'val'),
                [osp.join(root, 'splits.json'), '"val"', 'empty'])
    if name == 'spot_the_diff':
        pair_trees.make_spot_the_diff_tree(root)
        pair_trees.write_json(osp.join(root, 'annotations', 'val.json'), [])
        return (lambda r: SpotTheDiffDataset(r, 'val'),
                [osp.join(root, 'annotations', 'val.json'), 'no pairs'])
    if name == 'image_editing_request':
        pair_trees.make_ier_tree(root)
        pair_trees.write_json(osp.join(root, 'valid.json'), [])
        return (lambda r: ImageEditingRequestDataset(r, 'val'),
                [osp.join(root, 'valid.json'), 'no pairs'])
    if name == 'birds_to_words':  # 4 pairs: all of them train
        pair_trees.make_birds_to_words_tree(root, num_pairs=4)
        return (lambda r: BirdsToWordsDataset(r, 'val'),
                [osp.join(root, 'birds-to-words-v1.0.tsv'), '(val)',
                 'no pairs'])
    pair_trees.make_generic_tree(root)
    pair_trees.write_json(osp.join(root, 'pairs.json'), [])
    return _generic, [osp.join(root, 'pairs.json'), 'no pairs']


@pytest.mark.parametrize('name', ['clevr_change', 'spot_the_diff',
                                  'image_editing_request', 'birds_to_words',
                                  'own_pairs'])
def test_an_empty_split_names_the_file_and_split(name, tmp_path):
    build, parts = _empty_split(name, str(tmp_path))
    message = _raises(build, str(tmp_path), *parts)
    assert 'concatenate' not in message


def test_a_split_emptied_by_dropped_records(tmp_path):
    """Spot-the-Diff's train split drops pairs without a sentence: none
    left is an error, not an empty data set."""
    root = str(tmp_path)
    pair_trees.make_spot_the_diff_tree(root)
    pair_trees.write_json(osp.join(root, 'annotations', 'train.json'),
                          [dict(img_id='17', sentences=['', ' '])])
    _raises(lambda r: SpotTheDiffDataset(r, 'train'), root,
            osp.join(root, 'annotations', 'train.json'), 'no pairs')


# -- captions with no word ----------------------------------------------------
#: Caption lists that are empty once tokenised: no letter or digit.
WORDLESS = [['!!!'], ['\U0001f642'], ['...', '?'], ['the cube moved', '!!!']]


def _first_wordless(captions):
    return next(c for c in captions if c != 'the cube moved')


@pytest.mark.parametrize('captions', WORDLESS, ids=repr)
def test_a_caption_with_no_word_is_refused_at_build_time(captions, tmp_path):
    """As a blank caption is: the metrics would find no reference to score
    after the first epoch."""
    root = str(tmp_path)
    pair_trees.make_clevr_change_tree(root)
    _edit_json(osp.join(root, 'change_captions.json'),
               lambda c: c.update({'CLEVR_default_000001.png': captions}))
    message = _raises(lambda r: CLEVRChangeDataset(r, 'train'), root,
                      osp.join(root, 'change_captions.json'),
                      '"CLEVR_default_000001.png"', 'no word')
    assert repr(_first_wordless(captions)) in message


@pytest.mark.parametrize('captions', WORDLESS, ids=repr)
@pytest.mark.parametrize('ann', ['pairs.json', 'pairs.jsonl'])
def test_own_pairs_caption_with_no_word_is_refused(captions, ann, tmp_path):
    root = str(tmp_path)
    pair_trees.make_generic_tree(root, ann_name=ann)
    _edit_records(osp.join(root, ann),
                  lambda r: r[1].update(captions=captions))
    _raises(lambda r: _generic(r, ann), root, osp.join(root, ann),
            '(entry 1)', 'no word', repr(_first_wordless(captions)))


def test_sentences_with_no_word_are_dropped_like_empty_ones(tmp_path):
    """Spot-the-Diff (train) and Image Editing Request drop empty sentences
    (and a Spot-the-Diff pair left with none): a wordless one is empty
    too."""
    root = str(tmp_path / 'std')
    pair_trees.make_spot_the_diff_tree(root)
    pair_trees.write_json(osp.join(root, 'annotations', 'train.json'), [
        dict(img_id='5406', sentences=['a van arrived', '...']),
        dict(img_id='17', sentences=['\U0001f642', '?'])])
    data = SpotTheDiffDataset(root, 'train')
    assert [data.get_data_info(i)['gt_captions'] for i in range(len(data))] \
        == [['a van arrived']]
    root = str(tmp_path / 'ier')
    pair_trees.make_ier_tree(root)
    _edit_json(osp.join(root, 'train.json'),
               lambda r: r[0].update(sents=['!!!', '...']))
    _raises(lambda r: ImageEditingRequestDataset(r, 'train'), root,
            osp.join(root, 'train.json'), 'record 0', 'no non-empty')


# -- not UTF-8 ----------------------------------------------------------------
def test_a_file_not_in_utf8_is_named(data_set):
    root, build, ann = data_set
    with open(ann, 'rb') as f:
        text = f.read().decode('utf-8')
    # one caption gets an accent, the file is saved as Latin-1
    text = re.sub(r'(change|car|photo|animal1)', 'caf\u00e9', text,
                  count=1)
    with open(ann, 'wb') as f:
        f.write(text.encode('latin-1'))
    message = _raises(build, root, ann, 'not UTF-8', "b'\\xe9'")
    assert 'line ' in message


def test_a_utf8_byte_order_mark_is_accepted(data_set):
    root, build, ann = data_set
    with open(ann, 'rb') as f:
        data = f.read()
    with open(ann, 'wb') as f:
        f.write(b'\xef\xbb\xbf' + data)
    assert len(build(root)) > 0


# -- wrongly typed fields -----------------------------------------------------
WRONG_TYPES = [
    # (data set, file, edit, what the message names)
    ('own_pairs_json', 'pairs.json', lambda r: r[0].update(img1=5),
     ['record 0', '"img1"', 'int 5']),
    ('own_pairs_jsonl', 'pairs.jsonl', lambda r: r[1].update(img2=None),
     ['line 2', '"img2"', 'NoneType']),
    ('own_pairs_json', 'pairs.json', lambda r: r[2].update(pair_id=[1]),
     ['record 2', '"pair_id"']),
    ('own_pairs_json', 'pairs.json', lambda r: r[0].update(change_type=3),
     ['record 0', '"change_type"']),
    ('own_pairs_json', 'pairs.json', lambda r: r.__setitem__(1, 'a.png'),
     ['record 1', 'must be an object', 'str']),
    ('image_editing_request', 'train.json', lambda r: r[0].update(img0=5),
     ['record 0', '"img0"', 'int 5']),
    ('image_editing_request', 'train.json',
     lambda r: r[1].update(uid={'id': 7}), ['record 1', '"uid"']),
    ('image_editing_request', 'train.json',
     lambda r: r[1].update(sents=[None]), ['record 1', '"sents"', 'item 0']),
    ('image_editing_request', 'train.json', lambda r: r.__setitem__(0, 3),
     ['record 0', 'must be an object']),
    ('spot_the_diff', 'annotations/train.json',
     lambda r: r[0].update(sentences=[5]), ['record 0', '"sentences"',
                                            'item 0']),
    ('spot_the_diff', 'annotations/train.json',
     lambda r: r[1].update(img_id=1.5), ['record 1', '"img_id"', 'float']),
    ('spot_the_diff', 'annotations/train.json',
     lambda r: r[1].update(sentences=7), ['record 1', '"sentences"', 'int']),
    ('spot_the_diff', 'annotations/train.json',
     lambda r: r.__setitem__(2, 'img_id'), ['record 2', 'must be an object']),
    ('clevr_change', 'splits.json', lambda s: s['train'].__setitem__(0, 'x'),
     ['"train"', 'item 0', 'scene index']),
    ('clevr_change', 'splits.json', lambda s: s.update(train=3),
     ['"train"', 'list of scene indices']),
    ('clevr_change', 'type_mapping.json', lambda m: m.update(color='000000.png'),
     ['"color"', 'list of scene file names']),
    ('clevr_change', 'change_captions.json',
     lambda c: c.update({'CLEVR_default_000000.png': {'a': 1}}),
     ['"CLEVR_default_000000.png"', 'dict']),
]


@pytest.mark.parametrize('name,file,edit,parts', WRONG_TYPES,
                         ids=[f'{w[0]}-{i}' for i, w in enumerate(WRONG_TYPES)])
def test_wrongly_typed_fields_name_the_file_and_record(name, file, edit, parts,
                                                       tmp_path):
    make, build, _ = DATA_SETS[name]
    root = str(tmp_path)
    make(root)
    path = osp.join(root, file)
    if name.startswith('own_pairs') or name in ('image_editing_request',
                                                'spot_the_diff'):
        _edit_records(path, edit)
    else:
        _edit_json(path, edit)
    message = _raises(build, root, path, *parts)
    assert 'join() argument' not in message


# -- image paths directly under / --------------------------------------------
def test_an_image_under_the_root_folder_is_not_looked_up_here(
        tmp_path, monkeypatch):
    name = 'mmidc_fault_test_image.png'
    assert not osp.exists(osp.join('/', name))
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(b'')  # the same name in the current folder
    with pytest.raises(FileNotFoundError, match=f'/{name}'):
        check_images_exist([f'/{name}'], 'pairs.json')
    check_images_exist([name], 'pairs.json')  # relative: the current folder


def test_an_absolute_image_path_in_own_pairs(tmp_path, monkeypatch):
    root = str(tmp_path / 'set')
    pair_trees.make_generic_tree(root)
    name = 'mmidc_fault_test_image.png'
    _edit_records(osp.join(root, 'pairs.json'),
                  lambda r: r[0].update(img1=f'/{name}'))
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(b'')
    with pytest.raises(FileNotFoundError, match=f'image not found: /{name}'):
        _generic(root)
