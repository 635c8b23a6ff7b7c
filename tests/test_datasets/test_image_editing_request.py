import os.path as osp
import shutil

import pytest

from mmidc.datasets import ImageEditingRequestDataset
from mmidc.registry import DATASETS
from tests.helpers.pair_trees import make_ier_tree, read_json, write_json


def test_reads_mixed_formats(ier_root):
    dataset = DATASETS.build(
        dict(type='ImageEditingRequestDataset', data_root=ier_root,
             split='train'))
    first, second = dataset.get_data_info(0), dataset.get_data_info(1)
    assert first['pair_id'] == 'Reddit_1012'
    assert first['gt_captions'] == ['Brighten the photo.']  # "" dropped
    assert first['img1_path'] == osp.join(ier_root, 'images', 'a.jpg')
    assert first['img2_path'] == osp.join(ier_root, 'images', 'a_edit.png')
    assert second['change_type'] == 'unknown'


def test_val_is_an_alias_of_valid(ier_root):
    dataset = ImageEditingRequestDataset(ier_root, split='val')
    assert dataset.split == 'valid'
    assert dataset.get_data_info(0)['pair_id'] == 'Reddit_3'


def test_pipeline_brings_pair_to_one_size(ier_root):
    pipeline = [dict(type='LoadImagePair'), dict(type='ResizePair', size=24),
                dict(type='TokenizeCaptions'), dict(type='PackIDCInputs')]
    dataset = ImageEditingRequestDataset(ier_root, split='train',
                                         pipeline=pipeline)
    for i in range(len(dataset)):  # jpg+RGBA png, palette png+grey jpg
        assert dataset[i]['inputs'].shape == (2, 3, 24, 24)


def test_custom_image_folder(tmp_path):
    make_ier_tree(str(tmp_path), image_dir='pics')
    dataset = ImageEditingRequestDataset(str(tmp_path), split='test',
                                         data_prefix=dict(img_path='pics'))
    assert dataset.get_data_info(0)['img1_path'].endswith('pics/a.jpg')


def test_bad_input(tmp_path, ier_root):
    with pytest.raises(ValueError, match='"dev".*train, valid, test'):
        ImageEditingRequestDataset(ier_root, split='dev')
    root = str(tmp_path / 'ier')
    shutil.copytree(ier_root, root)
    records = read_json(osp.join(root, 'test.json'))
    records[0]['sents'] = ['']
    write_json(osp.join(root, 'test.json'), records)
    with pytest.raises(ValueError, match='test.json: record 0.*Reddit_4'):
        ImageEditingRequestDataset(root, split='test')
    records[0].pop('uid')
    write_json(osp.join(root, 'test.json'), records)
    with pytest.raises(ValueError, match='test.json: record 0.*"uid"'):
        ImageEditingRequestDataset(root, split='test')
