"""The Karpathy-JSON remote-sensing readers on tiny trees in each set's
distributed layout: what they read, what they pass along, what they refuse
(at build time, naming the file and key)."""
import json
import os
import os.path as osp
import shutil

import pytest

from mmidc.datasets import (DubaiCCDataset, KarpathyChangeCaptionDataset,
                            LEVIRCCDataset, LEVIRMCIDataset, SECONDCCDataset,
                            WHUCDCDataset, change_caption_karpathy)
from mmidc.registry import DATASETS
from mmidc.text import no_change
from tests.helpers import rs_trees

SPLITS = {'train': 4, 'val': 2, 'test': 2}


def entries(dataset):
    return [dataset.get_data_info(i) for i in range(len(dataset))]


def build(type_, root, split='train', **kwargs):
    # no serialisation: its gc.collect() costs ~1 s a build
    return DATASETS.build(dict(type=type_, data_root=root, split=split,
                               pipeline=[], serialize_data=False, **kwargs))


@pytest.fixture(scope='module')
def trees(tmp_path_factory):
    """One tree per layout, written once (tests that break one copy it)."""
    base = tmp_path_factory.mktemp('rs')
    makers = dict(levir_cc=rs_trees.make_levir_cc_tree,
                  levir_mci=rs_trees.make_levir_mci_tree,
                  whu_cdc=rs_trees.make_whu_cdc_tree,
                  second_cc=rs_trees.make_second_cc_tree,
                  dubai_cc=rs_trees.make_dubai_cc_tree)
    roots = {}
    for name, make in makers.items():
        roots[name] = str(base / name)
        make(roots[name], SPLITS)
    return roots


def copy_tree(trees, name, tmp_path):
    root = str(tmp_path / name)
    shutil.copytree(trees[name], root)
    return root


def edit_json(path, edit):
    with open(path) as f:
        content = json.load(f)
    edit(content)
    with open(path, 'w') as f:
        json.dump(content, f)


# ----------------------------------------------------------------------
# Each layout, as distributed
# ----------------------------------------------------------------------
@pytest.mark.parametrize('type_, name, before, after', [
    ('LEVIRCCDataset', 'levir_cc', 'images/{s}/A', 'images/{s}/B'),
    ('LEVIRMCIDataset', 'levir_mci', 'images/{s}/A', 'images/{s}/B'),
    ('WHUCDCDataset', 'whu_cdc', 'images/{s}/A', 'images/{s}/B'),
    ('SECONDCCDataset', 'second_cc', '{s}/rgb/A', '{s}/rgb/B'),
])
@pytest.mark.parametrize('split', ['train', 'val', 'test'])
def test_karpathy_layouts(trees, type_, name, before, after, split):
    root = trees[name]
    got = entries(build(type_, root, split))
    assert [e['pair_id'] for e in got] == [
        f'{split}_{k:06d}.png' for k in range(SPLITS[split])]
    first = got[0]
    assert first['img1_path'] == osp.join(root, before.format(s=split),
                                          first['pair_id'])
    assert first['img2_path'] == osp.join(root, after.format(s=split),
                                          first['pair_id'])
    # pairs alternate change / no change; the flag is read from the captions
    assert [e['change_flag'] for e in got] == [
        1 - k % 2 for k in range(SPLITS[split])]
    assert [e['change_type'] for e in got[:2]] == [
        KarpathyChangeCaptionDataset.CHANGE_TYPE,
        KarpathyChangeCaptionDataset.NO_CHANGE_TYPE]
    # the "raw" captions, stripped; "tokens", "imgid", "sentids" ignored
    assert first['gt_captions'] == [
        c.strip() for c in rs_trees.captions_of(0, True)]
    assert len(got[1]['gt_captions']) == 5


def test_masks_and_semantic_maps_passed_along(trees):
    mci = entries(build('LEVIRMCIDataset', trees['levir_mci'], 'test'))
    assert mci[0]['mask_path'] == osp.join(
        trees['levir_mci'], 'images/test/label/test_000000.png')
    whu = entries(build('WHUCDCDataset', trees['whu_cdc'], 'val'))
    assert whu[1]['mask_path'] == osp.join(
        trees['whu_cdc'], 'images/val/label/val_000001.png')
    second = entries(build('SECONDCCDataset', trees['second_cc']))
    assert second[2]['sem1_path'] == osp.join(
        trees['second_cc'], 'train/sem/A/train_000002.png')
    assert second[2]['sem2_path'] == osp.join(
        trees['second_cc'], 'train/sem/B/train_000002.png')
    assert all(osp.isfile(e[k]) for e in second
               for k in ('sem1_path', 'sem2_path'))
    # LEVIR-CC has no masks: none are passed
    assert 'mask_path' not in entries(
        build('LEVIRCCDataset', trees['levir_cc']))[0]


def test_masks_never_required(trees, tmp_path, monkeypatch):
    # LEVIR-MCI's reader on a LEVIR-CC tree: no label folder, no mask_path
    got = entries(build('LEVIRMCIDataset', trees['levir_cc']))
    assert len(got) == 4 and not any('mask_path' in e for e in got)
    # a label folder missing one mask: the others passed, the gap logged
    root = copy_tree(trees, 'levir_mci', tmp_path)
    os.remove(osp.join(root, 'images/train/label/train_000001.png'))
    logged = []
    monkeypatch.setattr(change_caption_karpathy, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    got = entries(LEVIRMCIDataset(root, 'train', serialize_data=False))
    assert ['mask_path' in e for e in got] == [True, False, True, True]
    assert any('1 pairs have no file in' in m and 'label' in m
               for m in logged)


def test_dubai_cc_layout(trees):
    root = trees['dubai_cc']
    offsets = dict(train=0, val=4, test=6)
    for split, count in SPLITS.items():
        got = entries(build('DubaiCCDataset', root, split))
        assert [e['pair_id'] for e in got] == [
            f'{offsets[split] + k}x{k % 3}.tif' for k in range(count)]
        assert got[0]['img1_path'] == osp.join(root, 'RGB/500_2000',
                                               got[0]['pair_id'])
        assert got[0]['img2_path'] == osp.join(root, 'RGB/500_2010',
                                               got[0]['pair_id'])
        assert [e['change_flag'] for e in got] == [1, 0] * (count // 2)


def test_changeflag_read_from_the_file(tmp_path):
    root = str(tmp_path / 'levir_v1')
    rs_trees.make_levir_cc_tree(root, SPLITS, changeflag=True,
                                ann_file='LevirCCcaptions_v1.json')
    path = osp.join(root, 'LevirCCcaptions_v1.json')
    # the file's flag wins over the captions (pair 1 has no-change captions)
    edit_json(path, lambda c: c['images'][1].update(changeflag=1))
    got = entries(LEVIRCCDataset(root, 'train', serialize_data=False,
                                 ann_file='LevirCCcaptions_v1.json'))
    assert [e['change_flag'] for e in got] == [1, 1, 1, 0]
    assert got[1]['change_type'] == 'change'
    edit_json(path, lambda c: c['images'][0].update(changeflag=2))
    with pytest.raises(ValueError, match=r'LevirCCcaptions_v1.json: '
                       r'images\[0\].*"changeflag" must be 0.*got 2'):
        LEVIRCCDataset(root, 'train', ann_file='LevirCCcaptions_v1.json')


def test_mixed_captions_read_as_change(trees, tmp_path, monkeypatch):
    root = copy_tree(trees, 'levir_cc', tmp_path)
    path = osp.join(root, 'LevirCCcaptions.json')
    edit_json(path, lambda c: c['images'][1]['sentences'][0].update(
        raw='a road is built'))
    logged = []
    monkeypatch.setattr(change_caption_karpathy, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    got = entries(LEVIRCCDataset(root, 'train', serialize_data=False))
    assert got[1]['change_flag'] == 1
    assert any('1 pairs mix no-change and change captions' in m
               and 'train_000001.png' in m for m in logged)


def test_without_no_change_pairs(trees):
    got = entries(build('LEVIRCCDataset', trees['levir_cc'],
                        with_no_change=False))
    assert [e['pair_id'] for e in got] == ['train_000000.png',
                                           'train_000002.png']
    assert {e['change_flag'] for e in got} == {1}


def test_own_no_change_sentences(trees):
    # nothing counts as no change when the set's sentences are others
    got = entries(build('LEVIRCCDataset', trees['levir_cc'],
                        no_change_sentences=['nothing happened']))
    assert {e['change_flag'] for e in got} == {1}
    # a string names a data set: an unknown one is named with the known
    with pytest.raises(ValueError, match=r"LEVIRCCDataset: "
                       r"no_change_sentences: unknown data set 'same'; "
                       r"known: \[.*'dubai_cc'"):
        LEVIRCCDataset(trees['levir_cc'], no_change_sentences='same')
    with pytest.raises(ValueError, match='a list of non-empty sentences'):
        LEVIRCCDataset(trees['levir_cc'], no_change_sentences=['', 'x'])


@pytest.mark.parametrize('type_, name', [
    ('LEVIRCCDataset', 'levir_cc'), ('LEVIRMCIDataset', 'levir_mci'),
    ('WHUCDCDataset', 'whu_cdc'), ('SECONDCCDataset', 'second_cc'),
    ('DubaiCCDataset', 'dubai_cc'),
    ('KarpathyChangeCaptionDataset', 'levir_cc')])
def test_each_reader_uses_its_own_sets_sentences(trees, type_, name):
    """By default each reader flags pairs by its own data set's
    sentences (SECOND-CC's "no change is occurred", Dubai-CC's "Nothing has
    changed." are not LEVIR-CC's)."""
    root = trees['levir_cc' if type_ == 'KarpathyChangeCaptionDataset'
                 else name]
    dataset = build(type_, root, 'val', **(
        dict(ann_file='LevirCCcaptions.json')
        if type_ == 'KarpathyChangeCaptionDataset' else {}))
    assert dataset.no_change_sentences == \
        no_change.NO_CHANGE_SENTENCES[name]
    assert [e['change_flag'] for e in entries(dataset)] == [1, 0]


def test_pair_counts_logged(trees, monkeypatch):
    logged = []
    monkeypatch.setattr(change_caption_karpathy, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    build('SECONDCCDataset', trees['second_cc'])
    assert any('4 pairs: 2 no change, 2 change, 0 mixed (no-change '
               'sentences: "second_cc"' in m for m in logged)


def test_empty_captions_dropped_and_counted(trees, tmp_path, monkeypatch):
    root = copy_tree(trees, 'whu_cdc', tmp_path)
    path = osp.join(root, 'whuCCcaptions.json')
    edit_json(path, lambda c: c['images'][0]['sentences'][1].update(raw=' . '))
    logged = []
    monkeypatch.setattr(change_caption_karpathy, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    got = entries(WHUCDCDataset(root, 'train', serialize_data=False))
    assert len(got[0]['gt_captions']) == 4
    assert any('dropped 1 empty captions' in m for m in logged)

    def empty_all(c):
        for sentence in c['images'][0]['sentences']:
            sentence['raw'] = ''
    edit_json(path, empty_all)
    with pytest.raises(ValueError, match=r'whuCCcaptions.json: images\[0\] '
                       r'\("train_000000.png"\) has no non-empty caption'):
        WHUCDCDataset(root, 'train')


# ----------------------------------------------------------------------
# Wrong layouts and bad files, named at build time
# ----------------------------------------------------------------------
def test_wrong_layouts_named(trees):
    # LEVIR-CC's reader on a WHU-CDC tree: its captions file is absent
    with pytest.raises(FileNotFoundError,
                       match=r'annotation file not found: .*whu_cdc/'
                       r'LevirCCcaptions.json'):
        LEVIRCCDataset(trees['whu_cdc'])
    # WHU-CDC's captions read as LEVIR-CC's: no "split" key in the records
    with pytest.raises(ValueError, match=r'whuCCcaptions.json: images\[0\] '
                       r'has no key "split"'):
        LEVIRCCDataset(trees['whu_cdc'], ann_file='whuCCcaptions.json')
    # SECOND-CC's reader on a LEVIR-CC tree given its captions
    with pytest.raises(FileNotFoundError, match=r'image folder not found: '
                       r'.*levir_cc/train/rgb/A'):
        SECONDCCDataset(trees['levir_cc'], ann_file='LevirCCcaptions.json')
    # Dubai-CC's reader on a LEVIR-CC tree
    with pytest.raises(FileNotFoundError, match=r'Dubai-CC caption folder '
                       r'not found: .*levir_cc/description_jsontr_te_val'):
        DubaiCCDataset(trees['levir_cc'])
    with pytest.raises(ValueError, match=r'unknown split "dev".*train, val, '
                       r'test'):
        LEVIRCCDataset(trees['levir_cc'], split='dev')


@pytest.mark.parametrize('layout, name, missing', [
    ('LEVIRCCDataset', 'levir_cc', 'images/test/B/test_000001.png'),
    ('WHUCDCDataset', 'whu_cdc', 'images/test/A/test_000000.png'),
    ('SECONDCCDataset', 'second_cc', 'test/rgb/B/test_000001.png'),
    ('DubaiCCDataset', 'dubai_cc', 'RGB/500_2010/7x1.tif'),
])
def test_missing_image_named(trees, tmp_path, layout, name, missing):
    root = copy_tree(trees, name, tmp_path)
    os.remove(osp.join(root, missing))
    with pytest.raises(FileNotFoundError,
                       match=f'image not found: .*{missing}'):
        build(layout, root, 'test')


@pytest.mark.parametrize('edit, message', [
    (lambda c: c.pop('images'), r'LevirCCcaptions.json: expected a '
     r'Karpathy-style object .*got an object with the keys dataset'),
    (lambda c: c['images'][2].pop('filename'),
     r'images\[2\] has no key "filename"'),
    (lambda c: c['images'][1].update(split='dev'),
     r'images\[1\] key "split" is \'dev\', not a split'),
    (lambda c: c['images'][0].update(sentences='a road'),
     r'images\[0\] \("train_000000.png"\) key "sentences" must be a list'),
    (lambda c: c['images'][3]['sentences'][2].pop('raw'),
     r'images\[3\] \("train_000003.png"\) sentences\[2\] has no key "raw"'),
    (lambda c: c['images'][0]['sentences'][0].update(raw=5),
     r'sentences\[0\] key "raw": item 0 must be a string'),
    (lambda c: c['images'][0].update(filename=7),
     r'images\[0\] key "filename" must be a non-empty string'),
])
def test_bad_records_named(trees, tmp_path, edit, message):
    root = copy_tree(trees, 'levir_cc', tmp_path)
    edit_json(osp.join(root, 'LevirCCcaptions.json'), edit)
    with pytest.raises(ValueError, match=message):
        LEVIRCCDataset(root, 'train')


def test_not_a_karpathy_file(trees, tmp_path):
    root = copy_tree(trees, 'levir_cc', tmp_path)
    with open(osp.join(root, 'LevirCCcaptions.json'), 'w') as f:
        json.dump([{'filename': 'x.png'}], f)
    with pytest.raises(ValueError, match=r'LevirCCcaptions.json: expected a '
                       r'Karpathy-style object.*got list'):
        LEVIRCCDataset(root)


def test_dubai_split_files_must_be_one_each(trees, tmp_path):
    root = copy_tree(trees, 'dubai_cc', tmp_path)
    folder = osp.join(root, 'description_jsontr_te_val')
    shutil.copy(osp.join(folder, 'Test_Dubai_CC.json'),
                osp.join(folder, 'Test_copy.json'))
    with pytest.raises(ValueError, match=r'expected one Test_\*.json for '
                       r'split "test", found 2 .*Test_Dubai_CC.json, '
                       r'Test_copy.json'):
        DubaiCCDataset(root, 'test')
    os.remove(osp.join(folder, 'Validation_Dubai_CC.json'))
    with pytest.raises(ValueError, match=r'Validation_\*.json for split '
                       r'"val", found 0'):
        DubaiCCDataset(root, 'val')


def test_generic_reader_any_layout(trees):
    """The registered generic reader reads a layout from its arguments."""
    got = entries(build('KarpathyChangeCaptionDataset', trees['second_cc'],
                        'val', ann_file='SECOND-CC-AUG.json',
                        img1_dir='{split}/sem/A', img2_dir='{split}/sem/B'))
    assert got[0]['img1_path'].endswith('val/sem/A/val_000000.png')
