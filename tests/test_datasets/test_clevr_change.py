import os
import os.path as osp

import pytest

from mmidc.datasets import CLEVRChangeDataset
from mmidc.registry import DATASETS
from tests.helpers.pair_trees import CLEVR_SPLITS, CLEVR_TYPES, read_json, write_json


def test_reads_pairs_ids_types_paths(clevr_root):
    dataset = DATASETS.build(
        dict(type='CLEVRChangeDataset', data_root=clevr_root, split='train'))
    # Each scene index gives a change pair and a no-change pair.
    assert len(dataset) == 2 * len(CLEVR_SPLITS['train'])
    change, no_change = dataset.get_data_info(2), dataset.get_data_info(3)
    assert change['pair_id'] == '000001.png'
    assert change['change_type'] == CLEVR_TYPES[1]
    assert change['img1_path'] == osp.join(clevr_root, 'images',
                                           'CLEVR_default_000001.png')
    assert change['img2_path'] == osp.join(clevr_root, 'sc_images',
                                           'CLEVR_semantic_000001.png')
    assert change['gt_captions'] == read_json(
        osp.join(clevr_root,
                 'change_captions.json'))['CLEVR_default_000001.png']
    assert no_change['pair_id'] == '000001.png_n'
    assert no_change['change_type'] == 'none'
    assert no_change['img1_path'] == change['img1_path']
    assert no_change['img2_path'] == osp.join(
        clevr_root, 'nsc_images', 'CLEVR_nonsemantic_000001.png')
    assert no_change['gt_captions'] == ['no change was made',
                                        'there is no change']


@pytest.mark.parametrize('split', ['val', 'test'])
def test_other_splits(clevr_root, split):
    dataset = CLEVRChangeDataset(clevr_root, split=split)
    ids = [dataset.get_data_info(i)['pair_id'] for i in range(len(dataset))]
    expected = [f'{s:06d}.png{suffix}' for s in CLEVR_SPLITS[split]
                for suffix in ('', '_n')]
    assert ids == expected


def test_without_no_change_pairs(clevr_root):
    dataset = CLEVRChangeDataset(clevr_root, split='train',
                                 with_no_change=False)
    types = [dataset.get_data_info(i)['change_type']
             for i in range(len(dataset))]
    assert len(dataset) == len(CLEVR_SPLITS['train'])
    assert 'none' not in types


def test_lazy_init(clevr_root):
    dataset = CLEVRChangeDataset(clevr_root, split='val', lazy_init=True)
    assert not dataset._fully_initialized
    assert dataset.get_data_info(0)['pair_id'] == '000004.png'


def test_wrong_split_lists_valid_ones(clevr_root):
    with pytest.raises(ValueError, match='"training".*train, val, test'):
        CLEVRChangeDataset(clevr_root, split='training', lazy_init=True)


def _edit(root, name, mutate):
    path = osp.join(root, name)
    content = read_json(path)
    mutate(content)
    write_json(path, content)


@pytest.mark.parametrize('name, mutate, words', [
    ('change_captions.json',
     lambda c: c.pop('CLEVR_default_000002.png'),
     ['change_captions.json', 'CLEVR_default_000002.png']),
    ('no_change_captions.json',
     lambda c: c.pop('CLEVR_default_000003.png'),
     ['no_change_captions.json', 'CLEVR_default_000003.png']),
    ('change_captions.json',
     lambda c: c.update({'CLEVR_default_000001.png': []}),
     ['change_captions.json', 'CLEVR_default_000001.png', 'empty']),
    ('type_mapping.json', lambda c: c['move'].append('000999.png'),
     ['type_mapping.json', '000999.png', 'no split']),
    ('type_mapping.json', lambda c: c['move'].append('scene_7.jpg'),
     ['type_mapping.json', 'scene_7.jpg']),
    ('type_mapping.json', lambda c: c['color'].remove('000000.png'),
     ['type_mapping.json', '000000.png', 'no change type']),
    ('type_mapping.json', lambda c: c['add'].append('000000.png'),
     ['type_mapping.json', '000000.png', 'color', 'add']),
    ('type_mapping.json', lambda c: c.update(texture=[]),
     ['type_mapping.json', 'texture']),
])
def test_bad_annotations_name_file_and_key(fresh_clevr_root, name, mutate,
                                           words):
    _edit(fresh_clevr_root, name, mutate)
    with pytest.raises(ValueError) as info:
        CLEVRChangeDataset(fresh_clevr_root, split='train')
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize('folder, name', [
    ('images', 'CLEVR_default_000002.png'),
    ('sc_images', 'CLEVR_semantic_000003.png'),
    ('nsc_images', 'CLEVR_nonsemantic_000000.png'),
])
def test_missing_image_named(fresh_clevr_root, folder, name):
    os.remove(osp.join(fresh_clevr_root, folder, name))
    with pytest.raises(FileNotFoundError, match=f'{folder}/{name}'):
        CLEVRChangeDataset(fresh_clevr_root, split='train')


def test_missing_annotation_file_named(fresh_clevr_root):
    os.remove(osp.join(fresh_clevr_root, 'type_mapping.json'))
    with pytest.raises(FileNotFoundError, match='type_mapping.json'):
        CLEVRChangeDataset(fresh_clevr_root, split='test')


def test_no_change_files_not_needed_without_no_change(fresh_clevr_root):
    os.remove(osp.join(fresh_clevr_root, 'no_change_captions.json'))
    dataset = CLEVRChangeDataset(fresh_clevr_root, split='val',
                                 with_no_change=False)
    assert len(dataset) == len(CLEVR_SPLITS['val'])


def test_distractor_path_on_change_pairs(clevr_root, fresh_clevr_root):
    dataset = CLEVRChangeDataset(clevr_root, with_distractor_path=True)
    for i in range(len(dataset)):
        info = dataset.get_data_info(i)
        if info['change_type'] == 'none':
            assert 'distractor_path' not in info
        else:
            scene = info['pair_id'][:6]
            assert info['distractor_path'] == osp.join(
                clevr_root, 'nsc_images', f'CLEVR_nonsemantic_{scene}.png')
    assert 'distractor_path' not in CLEVRChangeDataset(
        clevr_root).get_data_info(0)
    # checked at build time, also without the no-change pairs
    os.remove(osp.join(fresh_clevr_root, 'nsc_images',
                       'CLEVR_nonsemantic_000002.png'))
    CLEVRChangeDataset(fresh_clevr_root, with_no_change=False)  # not needed
    with pytest.raises(FileNotFoundError, match='CLEVR_nonsemantic_000002'):
        CLEVRChangeDataset(fresh_clevr_root, with_no_change=False,
                           with_distractor_path=True)
