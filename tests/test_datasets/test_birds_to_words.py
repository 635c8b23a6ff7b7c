"""BirdsToWordsDataset on a tiny tree in the published layout."""
import logging
import os
import os.path as osp

import pytest
from tests.helpers import logged_records
from tests.helpers.pair_trees import (BIRDS_TO_WORDS_HEADER, make_birds_to_words_tree,
                        write_tsv)

from mmidc.datasets import BirdsToWordsDataset
from mmidc.datasets.birds_to_words import (image_file_name,
                                           image_file_problem, url_fields)

#: the default file name of photo N of the fixture's unique-style URLs
NAME = 'static.example.org_photos_{}.jpg'


@pytest.fixture
def birds_root(tmp_path):
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=6)
    return root, rows


def test_reads_the_published_layout_and_merges_the_rows_of_a_pair(birds_root):
    root, rows = birds_root
    data = rows[1:]
    train = BirdsToWordsDataset(root, split='train')
    assert len(train) == 4  # pairs 0-3
    first = train.get_data_info(0)
    assert first['img1_path'] == os.path.join(root, 'images', NAME.format(1001))
    assert first['img2_path'] == os.path.join(root, 'images', NAME.format(1002))
    assert first['pair_id'] == ('static.example.org_photos_1001_'
                                'static.example.org_photos_1002')
    assert first['change_type'] == 'unknown'
    expected = [r[10] for r in data if r[1].endswith('/1001.jpg') and r[10]]
    assert first['gt_captions'] == expected  # annN order, empty one dropped
    assert all('animal1' in c or 'animal2' in c for c in first['gt_captions'])
    assert len(BirdsToWordsDataset(root, split='val')) == 1
    assert len(BirdsToWordsDataset(root, split='test')) == 1
    with pytest.raises(ValueError, match='unknown split "valid"'):
        BirdsToWordsDataset(root, split='valid')


def test_missing_image_fails_at_build_time_naming_it(birds_root):
    root, _ = birds_root
    os.remove(os.path.join(root, 'images', NAME.format(1004)))
    with pytest.raises(FileNotFoundError, match=NAME.format(1004)):
        BirdsToWordsDataset(root, split='train')


def test_default_naming_is_unique_for_real_form_urls(tmp_path):
    # as the distributed TSV has them: every URL ends in medium.jpg?<n>
    url = 'https://static.inaturalist.org/photos/647514/medium.jpg?1487600000'
    assert image_file_name(url) == ('static.inaturalist.org_photos_647514_'
                                    'medium.jpg')
    assert image_file_name('http://127.0.0.1:8000/photos/1/medium.jpg?2') == (
        '127.0.0.1_8000_photos_1_medium.jpg')
    assert image_file_name(url, '{parent}{ext}') == '647514.jpg'
    assert url_fields(url)['basename'] == 'medium.jpg'
    root = str(tmp_path / 'birds')
    make_birds_to_words_tree(root, num_pairs=6, url_style='inaturalist')
    train = BirdsToWordsDataset(root, split='train')
    assert len(train) == 4
    assert train.get_data_info(0)['img1_path'] == osp.join(
        root, 'images', 'static.example.org_photos_1001_medium.jpg')
    assert len({train.get_data_info(i)['pair_id'] for i in range(4)}) == 4


def test_urls_that_map_to_one_file_are_an_error_naming_both(tmp_path):
    root = str(tmp_path / 'birds')
    make_birds_to_words_tree(root, num_pairs=2, url_style='medium',
                             image_name='{parent}_{basename}')
    with pytest.raises(ValueError) as err:
        BirdsToWordsDataset(root, split='train', image_name='{basename}')
    message = str(err.value)
    assert 'photos/1001/medium.jpg' in message and 'photos/1002/medium.jpg' in message
    assert "'medium.jpg'" in message
    # the documented option for that download layout
    ds = BirdsToWordsDataset(root, split='train', image_name='{parent}_{basename}')
    assert ds.get_data_info(0)['img1_path'].endswith('images/1001_medium.jpg')
    with pytest.raises(ValueError, match='image_name'):
        BirdsToWordsDataset(root, image_name='{photo}')


def test_urls_differing_only_in_the_query_are_one_image(tmp_path):
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=2, url_style='inaturalist')
    tsv = osp.join(root, 'birds-to-words-v1.0.tsv')
    again = list(rows[1])  # pair 0's first photo, another query string
    again[1] = again[1].split('?')[0] + '?7'
    again[5] = rows[-1][5]  # with pair 1's second photo: a new pair
    write_tsv(tsv, rows + [again])
    ds = BirdsToWordsDataset(root, split='train')
    assert len(ds) == 3
    assert ds.get_data_info(2)['img1_path'] == ds.get_data_info(0)['img1_path']


def test_names_outside_the_image_folder_are_an_error(tmp_path):
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=1)
    rows[1][1] = 'https://h.org/a/../../../x.jpg'
    write_tsv(osp.join(root, 'birds-to-words-v1.0.tsv'), rows)
    with pytest.raises(ValueError, match=r"line 2 img1ImgURL .*inside the image"):
        BirdsToWordsDataset(root, image_name='{path}')


def shared_photo_tree(tmp_path):
    """12 pairs; test pair 5 (of 5 and 11) re-uses train pair 1's first
    photo."""
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=12)
    shared = next(r[1] for r in rows[1:] if r[1].endswith('/1003.jpg'))
    for r in rows[1:]:
        if r[1].endswith('/1011.jpg'):
            r[1] = shared
    write_tsv(osp.join(root, 'birds-to-words-v1.0.tsv'), rows)
    os.remove(osp.join(root, 'images', NAME.format(1011)))  # now unused
    return root


def test_skip_missing_images_leaves_out_their_pairs_with_a_count(tmp_path):
    root = shared_photo_tree(tmp_path)
    os.remove(osp.join(root, 'images', NAME.format(1003)))
    for split in ('train', 'test'):  # checked in every split it is in
        with pytest.raises(FileNotFoundError, match=NAME.format(1003)):
            BirdsToWordsDataset(root, split=split)
    with logged_records() as records:
        train = BirdsToWordsDataset(root, split='train',
                                    skip_missing_images=True)
        test = BirdsToWordsDataset(root, split='test', skip_missing_images=True)
    assert len(train) == 7 and len(test) == 1
    assert NAME.format(1003) not in str([train.get_data_info(i)
                                         for i in range(7)])
    messages = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert any('(train): skipped 1 of 8 pairs whose images are missing' in m
               for m in messages), messages
    assert any('(test): skipped 1 of 2 pairs' in m for m in messages), messages
    # a split left with no pair is an error, not an empty data set
    os.remove(osp.join(root, 'images', NAME.format(1023)))
    with pytest.raises(FileNotFoundError, match=r'\(test\): the images of all 2 '
                       'pairs are missing .*download_birds_to_words.py'):
        BirdsToWordsDataset(root, split='test', skip_missing_images=True)


@pytest.mark.parametrize('content, problem', [
    (b'<html>Not Found</html>', 'not an image file'),
    (b'', 'empty file'),
    ('truncate', 'truncated JPEG'),
])
def test_a_corrupt_image_fails_at_build_time_in_every_split(
        tmp_path, content, problem):
    root = shared_photo_tree(tmp_path)
    path = osp.join(root, 'images', NAME.format(1003))
    assert image_file_problem(path) is None
    if content == 'truncate':
        with open(path, 'rb') as f:
            content = f.read()[:-200]
    with open(path, 'wb') as f:
        f.write(content)
    assert problem in image_file_problem(path)
    for split in ('train', 'test'):
        with pytest.raises(OSError, match=f'corrupt image: {path} .*{problem}'):
            BirdsToWordsDataset(root, split=split, skip_missing_images=True)
    assert len(BirdsToWordsDataset(root, split='val')) == 2


def test_punctuation_only_descriptions_are_dropped_like_empty_ones(tmp_path):
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=2)
    rows[1][10] = ' ... !'
    write_tsv(osp.join(root, 'birds-to-words-v1.0.tsv'), rows)
    first = BirdsToWordsDataset(root).get_data_info(0)
    assert '... !' not in first['gt_captions'] and first['gt_captions']
    for r in rows[1:]:  # every description of pair 0
        if r[1] == rows[1][1]:
            r[10] = '-'
    write_tsv(osp.join(root, 'birds-to-words-v1.0.tsv'), rows)
    with pytest.raises(ValueError, match='line 2 .*no non-empty description'):
        BirdsToWordsDataset(root)


def test_bad_rows_name_the_file_and_line(tmp_path):
    root = str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(root, num_pairs=2)
    tsv = os.path.join(root, 'birds-to-words-v1.0.tsv')
    write_tsv(tsv, rows + [rows[1][:10]])
    with pytest.raises(ValueError, match=r'birds-to-words-v1.0.tsv: line \d+ has 10'):
        BirdsToWordsDataset(root)
    moved = list(rows[1])
    moved[8] = 'test'
    write_tsv(tsv, rows + [moved])
    with pytest.raises(ValueError, match='in split "test"'):
        BirdsToWordsDataset(root)
    odd = list(rows[1])
    odd[8] = 'dev'
    write_tsv(tsv, [list(BIRDS_TO_WORDS_HEADER), odd])
    with pytest.raises(ValueError, match='line 2 has split "dev"'):
        BirdsToWordsDataset(root)


def test_the_dropped_descriptions_are_counted_in_their_own_split(birds_root):
    """Pair 0 (train) has the only empty description: the train build logs
    it, the val and test builds log none."""
    root, _ = birds_root
    with logged_records() as records:
        for split in ('train', 'val', 'test'):
            BirdsToWordsDataset(root, split=split)
    dropped = [r.getMessage() for r in records if 'dropped' in r.getMessage()]
    assert len(dropped) == 1 and '(train): dropped 1 empty' in dropped[0], dropped
