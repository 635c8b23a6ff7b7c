"""BirdsToWordsDataset on a tiny tree in the published layout."""
import os

import pytest
from tests.helpers.pair_trees import (BIRDS_TO_WORDS_HEADER, make_birds_to_words_tree,
                        write_tsv)

from mmidc.datasets import BirdsToWordsDataset


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
    assert first['img1_path'] == os.path.join(root, 'images', '1001.jpg')
    assert first['img2_path'] == os.path.join(root, 'images', '1002.jpg')
    assert first['pair_id'] == '1001_1002'
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
    os.remove(os.path.join(root, 'images', '1004.jpg'))
    with pytest.raises(FileNotFoundError, match='1004.jpg'):
        BirdsToWordsDataset(root, split='train')


def test_urls_that_map_to_one_file_are_an_error_naming_both(tmp_path):
    root = str(tmp_path / 'birds')
    make_birds_to_words_tree(root, num_pairs=2, url_style='medium')
    with pytest.raises(ValueError) as err:
        BirdsToWordsDataset(root, split='train')
    message = str(err.value)
    assert 'photos/1001/medium.jpg' in message and 'photos/1002/medium.jpg' in message
    assert "'medium.jpg'" in message
    # the documented option for that download layout
    ds = BirdsToWordsDataset(root, split='train', image_name='{parent}_{basename}')
    assert ds.get_data_info(0)['img1_path'].endswith('images/1001_medium.jpg')
    with pytest.raises(ValueError, match='image_name'):
        BirdsToWordsDataset(root, image_name='{photo}')


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
