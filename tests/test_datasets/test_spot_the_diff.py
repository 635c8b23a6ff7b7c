import os
import os.path as osp

import pytest

from mmidc.datasets import SpotTheDiffDataset, spot_the_diff
from mmidc.registry import DATASETS


def test_reads_pairs_and_drops_empty_sentences(spot_root, monkeypatch):
    logged = []
    monkeypatch.setattr(spot_the_diff, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    dataset = DATASETS.build(
        dict(type='SpotTheDiffDataset', data_root=spot_root, split='train'))
    out = '\n'.join(logged)
    # Three empty sentences dropped; pair 99 had nothing left: reported.
    assert 'dropped 3 empty sentences' in out
    assert 'dropped 1 pairs' in out and 'img_id 99' in out
    entries = [dataset.get_data_info(i) for i in range(len(dataset))]
    assert [e['pair_id'] for e in entries] == ['5406', '17']
    assert entries[0]['gt_captions'] == ['a car left', 'a man came']
    assert entries[0]['img1_path'] == osp.join(spot_root, 'resized_images',
                                               '5406.png')
    assert entries[0]['img2_path'] == osp.join(spot_root, 'resized_images',
                                               '5406_2.png')
    assert {e['change_type'] for e in entries} == {'unknown'}


@pytest.mark.parametrize('split, ids', [('val', ['21']), ('test', ['8'])])
def test_other_splits(spot_root, split, ids):
    dataset = SpotTheDiffDataset(spot_root, split=split)
    assert [dataset.get_data_info(i)['pair_id']
            for i in range(len(dataset))] == ids


def test_wrong_split(spot_root):
    with pytest.raises(ValueError, match='"dev".*train, val, test'):
        SpotTheDiffDataset(spot_root, split='dev')


def test_missing_image_named(tmp_path):
    from tests.helpers.pair_trees import make_spot_the_diff_tree
    make_spot_the_diff_tree(str(tmp_path))
    os.remove(tmp_path / 'resized_images' / '8_2.png')
    with pytest.raises(FileNotFoundError, match='resized_images/8_2.png'):
        SpotTheDiffDataset(str(tmp_path), split='test')
