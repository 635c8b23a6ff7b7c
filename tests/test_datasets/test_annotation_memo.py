"""Inside ``read_annotations_once`` a data set built again reads its
annotations once; a changed argument or file is read again, a bad file
fails every time with its message, and nothing is kept after the block."""
import json
import os
import os.path as osp

import pytest

from mmidc.datasets import ImagePairDataset
from mmidc.datasets.annotation_memo import read_annotations_once
from tests.helpers.pair_trees import make_generic_tree


@pytest.fixture
def pairs(tmp_path, monkeypatch):
    """(config of a 3-pair data set, list of the files its builds parse)."""
    root = str(tmp_path)
    make_generic_tree(root)
    parsed = []
    parse = ImagePairDataset.parse_annotations

    def counting(self):
        parsed.append(self.ann_file)
        return parse(self)

    monkeypatch.setattr(ImagePairDataset, 'parse_annotations', counting)
    return dict(ann_file='pairs.json', data_root=root,
                data_prefix=dict(img_path='imgs')), parsed


def build(cfg, **changes):
    """The data set, its list kept as it is (MMEngine's packing of the
    list, with a ``gc.collect()``, takes 0.4 s in a test process)."""
    return ImagePairDataset(**dict(cfg, serialize_data=False) | changes)


def test_a_data_set_built_again_in_the_block_reads_once(pairs):
    cfg, parsed = pairs
    with read_annotations_once():
        first = build(cfg, pipeline=[])
        entry = first.get_data_info(0)
        again = build(cfg, pipeline=[dict(type='PackIDCInputs')],
                      lazy_init=True, serialize_data=True)  # as the runner
        assert len(parsed) == 1  # lazy: not loaded yet
        again.full_init()
        with read_annotations_once():  # a nested block shares the memo
            build(cfg)
    assert len(parsed) == 1
    assert again.get_data_info(0) == entry
    assert [again.get_data_info(i)['pair_id'] for i in range(3)] == [
        '0', 'custom-1', '2']


def test_each_reuse_gets_its_own_copy(pairs):
    cfg, _ = pairs
    with read_annotations_once():
        build(cfg, serialize_data=True)  # MMEngine empties its list
        again = build(cfg)
        again.data_list[0]['gt_captions'].append('changed')
        third = build(cfg)
    assert len(third) == 3
    assert third.data_list[0]['gt_captions'] == ['change number 0']


def test_another_argument_or_a_changed_file_is_read_again(pairs):
    cfg, parsed = pairs
    path = osp.join(cfg['data_root'], 'pairs.json')
    with read_annotations_once():
        build(cfg)
        build(cfg, data_prefix=dict(img_path='imgs/'))  # another argument
        assert len(parsed) == 2
        records = json.load(open(path))
        records[0]['captions'] = ['the file was changed']
        with open(path, 'w') as f:
            json.dump(records, f)
        os.utime(path, ns=(0, 10**9))  # a new mtime even on a coarse clock
        changed = build(cfg)
    assert len(parsed) == 3
    assert changed.get_data_info(0)['gt_captions'] == ['the file was changed']


def test_nothing_is_kept_after_the_block(pairs):
    cfg, parsed = pairs
    with read_annotations_once():
        build(cfg)
    build(cfg)
    build(cfg)
    assert len(parsed) == 3


def test_a_bad_file_fails_each_build_naming_it(pairs):
    cfg, parsed = pairs
    path = osp.join(cfg['data_root'], 'pairs.json')
    records = json.load(open(path))
    records[1]['captions'] = []
    with open(path, 'w') as f:
        json.dump(records, f)
    with read_annotations_once():
        for _ in range(2):
            with pytest.raises(ValueError, match='empty caption list') as err:
                build(cfg)
            assert path in str(err.value)
    assert len(parsed) == 2


def test_a_reader_notes_what_it_read_on_each_build(tmp_path, monkeypatch):
    # Dubai-CC finds its split's file while reading: every build names it
    from mmidc.datasets import DubaiCCDataset
    from tests.helpers.rs_trees import make_dubai_cc_tree
    make_dubai_cc_tree(str(tmp_path), splits={'train': 2}, size=(8, 8))
    records = DubaiCCDataset.load_images_list
    read = []
    monkeypatch.setattr(DubaiCCDataset, 'load_images_list', staticmethod(
        lambda path: read.append(path) or records(path)))
    with read_annotations_once():
        names = [DubaiCCDataset(data_root=str(tmp_path), serialize_data=False
                                ).annotation_source() for _ in range(2)]
    assert len(read) == 1
    assert names == 2 * [str(tmp_path / 'description_jsontr_te_val' /
                             'Train_Dubai_CC.json')]
