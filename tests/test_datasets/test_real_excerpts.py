"""The readers on excerpts of the real distributed annotation files
(``tests/data/*_excerpt.json``: a few records each, copied in the file's
exact form, quirks included), with placeholder images under the real
names. Where each excerpt comes from: ``docs/datasets.md`` ("Checked
against the distributed files")."""
import os
import os.path as osp

import pytest
from PIL import Image

from mmidc.datasets import (CLEVRChangeDataset, DubaiCCDataset,
                            ImageEditingRequestDataset, LEVIRCCDataset,
                            WHUCDCDataset, change_caption_karpathy)
from tests.helpers import rs_trees
from tests.helpers.pair_trees import write_json

DUBAI_DIRS = ('RGB/500_2000', 'RGB/500_2010')
#: no pipeline; no serialisation (its gc.collect() costs ~1 s a build)
FAST = dict(pipeline=[], serialize_data=False)


def entries(dataset):
    return [dataset.get_data_info(i) for i in range(len(dataset))]


def flags(dataset):
    return {e['pair_id']: e['change_flag'] for e in entries(dataset)}


@pytest.fixture(scope='module')
def dubai_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('dubai_real'))
    excerpt = rs_trees.real_excerpt('dubai_cc_excerpt.json')
    rs_trees.make_excerpt_tree(root, excerpt,
                               {name: DUBAI_DIRS for name in excerpt})
    return root


@pytest.fixture
def logged(monkeypatch):
    messages = []
    monkeypatch.setattr(change_caption_karpathy, 'print_log',
                        lambda msg, **kwargs: messages.append(msg))
    return messages


# ----------------------------------------------------------------------
# Dubai-CC: no changeflag, its own no-change sentences, mixed pairs
# ----------------------------------------------------------------------
def test_dubai_cc_no_change_pairs_by_its_own_sentences(dubai_root, logged):
    # 0x0.tif and 6x35.tif: five of Dubai-CC's no-change sentences, which
    # LEVIR-CC's five miss ("Nothing has changed.", "The area appears the
    # same." ...); 18x41.tif: three annotators saw no change, one a road
    test = DubaiCCDataset(dubai_root, 'test', **FAST)
    assert flags(test) == {'0x0.tif': 0, '6x35.tif': 0, '7x37.tif': 1,
                           '18x41.tif': 1}
    assert [e['change_type'] for e in entries(test)] == [
        'none', 'none', 'change', 'change']
    assert any(m.endswith('Test_Dubai_CC.json: 4 pairs: 2 no change, 1 '
                          'change, 1 mixed (no-change sentences: '
                          '"dubai_cc"; a "changeflag" where the file has '
                          'one)') for m in logged)
    assert any('1 pairs mix no-change and change captions' in m
               and '(18x41.tif): read as change pairs' in m for m in logged)
    assert flags(DubaiCCDataset(dubai_root, 'train', **FAST)) == {
        '1x4.tif': 0, '5x31.tif': 0, '6x26.tif': 1, '14x23.tif': 1}
    assert flags(DubaiCCDataset(dubai_root, 'val', **FAST)) == {
        '8x34.tif': 0, '9x46.tif': 1}


def test_dubai_cc_records_as_written(dubai_root):
    # cased captions ending in "." kept as written; .tif names; image_id /
    # sentence_id restart in each split's file (ignored)
    val = entries(DubaiCCDataset(dubai_root, 'val', **FAST))
    assert val[0]['gt_captions'][:2] == ['No changes in this area.',
                                         'Nothing has changed.']
    assert val[0]['img2_path'] == osp.join(dubai_root, 'RGB/500_2010',
                                           '8x34.tif')
    test = entries(DubaiCCDataset(dubai_root, 'test', **FAST))
    assert test[0]['pair_id'] == '0x0.tif'
    assert all(len(e['gt_captions']) == 5 for e in val + test)


def test_dubai_cc_mixed_pairs_options(dubai_root, logged):
    dropped = DubaiCCDataset(dubai_root, 'test', **FAST,
                             mixed_pairs='drop')
    assert sorted(flags(dropped)) == ['0x0.tif', '6x35.tif', '7x37.tif']
    assert any('(18x41.tif): left out (mixed_pairs="drop")' in m
               for m in logged)
    with pytest.raises(ValueError, match=r'Test_Dubai_CC.json: 1 pairs mix '
                       r'no-change and change captions .*\(18x41.tif\); '
                       r'mixed_pairs="error"'):
        DubaiCCDataset(dubai_root, 'test', **FAST, mixed_pairs='error')
    with pytest.raises(ValueError, match=r"DubaiCCDataset: mixed_pairs must "
                       r"be one of change, drop, error, got 'none'"):
        DubaiCCDataset(dubai_root, 'test', mixed_pairs='none')
    # the adaptation stage's change-only set keeps the mixed pair
    changed = DubaiCCDataset(dubai_root, 'test', **FAST,
                             with_no_change=False)
    assert sorted(flags(changed)) == ['18x41.tif', '7x37.tif']


def test_dubai_cc_other_sentences(dubai_root):
    # LEVIR-CC's five: only "There is no difference." matches, so the
    # no-change pairs come out as mixed, read as change pairs
    levir = DubaiCCDataset(dubai_root, 'test', **FAST,
                           no_change_sentences='levir_cc')
    assert set(flags(levir).values()) == {1}
    # a list of sentences, compared after the one normalisation
    own = DubaiCCDataset(dubai_root, 'val', **FAST,
                         no_change_sentences=[
                             'no changes in this area', 'NOTHING HAS CHANGED',
                             'there is no difference.',
                             'everything remains the same',
                             'no changes to mention'])
    assert flags(own) == {'8x34.tif': 0, '9x46.tif': 1}


# ----------------------------------------------------------------------
# LEVIR-CC and WHU-CDC: changeflag, filepath, raw as written
# ----------------------------------------------------------------------
@pytest.fixture(scope='module')
def levir_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('levir_real'))
    rs_trees.make_excerpt_tree(
        root, rs_trees.real_excerpt('levir_cc_excerpt.json'),
        {'LevirCCcaptions.json': ('images/{split}/A', 'images/{split}/B')})
    return root


def test_levir_cc_records_as_written(levir_root):
    test = entries(LEVIRCCDataset(levir_root, 'test', **FAST))
    assert [(e['pair_id'], e['change_flag']) for e in test] == [
        ('test_000483.png', 0), ('test_000484.png', 1)]
    # " there is no difference ." stripped; the literal backslash kept
    assert test[0]['gt_captions'][0] == 'there is no difference .'
    assert test[1]['gt_captions'][4] == (
        'a\\almost all of the plants are removed and a road with houses '
        'built alongside shows up .')
    train = entries(LEVIRCCDataset(levir_root, 'train', **FAST))
    assert [e['change_flag'] for e in train] == [0, 1]


def test_levir_cc_without_changeflag_same_flags(levir_root, tmp_path):
    # the flag from LEVIR-CC's five sentences agrees with changeflag
    excerpt = rs_trees.real_excerpt('levir_cc_excerpt.json')
    for record in excerpt['LevirCCcaptions.json']['images']:
        del record['changeflag']
    root = str(tmp_path / 'levir')
    os.symlink(osp.join(levir_root, 'images'), root + '_images')
    os.makedirs(root)
    os.symlink(root + '_images', osp.join(root, 'images'))
    write_json(osp.join(root, 'LevirCCcaptions.json'),
               excerpt['LevirCCcaptions.json'])
    for split in ('train', 'test'):
        assert flags(LEVIRCCDataset(root, split, **FAST)) == flags(
            LEVIRCCDataset(levir_root, split, **FAST))


def test_whu_cdc_records_as_written(tmp_path):
    root = str(tmp_path)
    rs_trees.make_excerpt_tree(
        root, rs_trees.real_excerpt('whu_cdc_excerpt.json'),
        {'whuCCcaptions.json': ('images/{split}/A', 'images/{split}/B')})
    got = entries(WHUCDCDataset(root, 'train', **FAST))
    assert [(e['pair_id'], e['change_flag']) for e in got] == [
        ('train_000001.png', 0), ('train_000005.png', 1),
        ('train_000013.png', 1)]
    assert got[1]['gt_captions'][3] == 'an asphalt road appears next to the ' \
        'house .'
    assert 'mask_path' not in got[0]  # no label folder here
    test = entries(WHUCDCDataset(root, 'test', **FAST))
    assert [(e['pair_id'], e['change_flag']) for e in test] == [
        ('test_005798.png', 0), ('test_005866.png', 1)]


# ----------------------------------------------------------------------
# Image-Editing-Request and CLEVR-Change
# ----------------------------------------------------------------------
def test_ier_records_as_written(tmp_path):
    root = str(tmp_path)
    excerpt = rs_trees.real_excerpt('ier_excerpt.json')
    os.makedirs(osp.join(root, 'images'))
    for name, records in excerpt.items():
        write_json(osp.join(root, name), records)
        for r in records:
            for key in ('img0', 'img1'):
                Image.new('RGB', (4, 4)).save(osp.join(root, 'images',
                                                       r[key]))
    train = entries(ImageEditingRequestDataset(root, 'train', **FAST))
    # one reference a pair on train, cased and spaced as typed
    assert [e['gt_captions'] for e in train] == [
        ['change the back ground'], ['Making dark color '],
        ['Removed the person  from behind and his hand']]
    assert train[0]['pair_id'] == 'Zhopped_2'
    assert train[0]['img1_path'].endswith('images/Zhopped.com_gc9hq_gc9hq.jpg')
    # the split is "valid" ("val" its alias); three references a pair
    valid = entries(ImageEditingRequestDataset(root, 'val', **FAST))
    assert [e['pair_id'] for e in valid] == ['Reddit_1012', 'Reddit_1014']
    assert valid[0]['gt_captions'] == [
        'make color brighter', 'Increase the brightness of the image',
        'add the effect']
    test = entries(ImageEditingRequestDataset(root, 'test', **FAST))
    assert {len(e['gt_captions']) for e in test} == {3}


def test_clevr_change_real_splits_and_types(tmp_path):
    root = str(tmp_path)
    excerpt = rs_trees.real_excerpt('clevr_change_excerpt.json')
    for name, content in excerpt.items():
        write_json(osp.join(root, name), content)
    captions = {}
    for index in sorted(i for v in excerpt['splits.json'].values()
                        for i in v):
        captions[f'CLEVR_default_{index:06d}.png'] = ['a caption']
        for folder, prefix in (('images', 'default'),
                               ('sc_images', 'semantic'),
                               ('nsc_images', 'nonsemantic')):
            os.makedirs(osp.join(root, folder), exist_ok=True)
            Image.new('RGBA', (4, 4)).save(osp.join(
                root, folder, f'CLEVR_{prefix}_{index:06d}.png'))
    write_json(osp.join(root, 'change_captions.json'), captions)
    write_json(osp.join(root, 'no_change_captions.json'), captions)
    # int scene indices; type_mapping.json names scenes "NNNNNN.png"
    got = entries(CLEVRChangeDataset(root, 'val', **FAST))
    assert [(e['pair_id'], e['change_type']) for e in got] == [
        ('000535.png', 'color'), ('000535.png_n', 'none'),
        ('010407.png', 'material'), ('010407.png_n', 'none'),
        ('021916.png', 'add'), ('021916.png_n', 'none'),
        ('027660.png', 'drop'), ('027660.png_n', 'none'),
        ('036435.png', 'move'), ('036435.png_n', 'none')]
    assert len(CLEVRChangeDataset(root, 'train', **FAST)) == 10
