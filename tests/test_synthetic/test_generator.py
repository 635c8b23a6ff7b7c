"""The synthetic CLEVR-Change generator: layout, determinism, settings."""
import os
import os.path as osp

import numpy as np
import pytest
from PIL import Image

from mmidc.datasets import CLEVRChangeDataset
from mmidc.synthetic import SceneSettings, check_dataset, generate_dataset
from mmidc.text import CaptionVocab, build_caption_vocab
from tests.helpers.pair_trees import read_json, synthetic_scene

JSON_FILES = ('change_captions.json', 'no_change_captions.json',
              'splits.json', 'type_mapping.json', 'caption_vocab_train.json')


def _load(root, name):
    return read_json(osp.join(root, name))


def test_layout_and_file_names(synthetic_root, synthetic_size):
    assert sorted(os.listdir(synthetic_root)) == sorted(
        ['images', 'sc_images', 'nsc_images', 'scenes', *JSON_FILES])
    for folder, prefix in (('images', 'CLEVR_default'),
                           ('sc_images', 'CLEVR_semantic'),
                           ('nsc_images', 'CLEVR_nonsemantic')):
        names = sorted(os.listdir(osp.join(synthetic_root, folder)))
        assert names == [f'{prefix}_{i:06d}.png' for i in range(40)]
        with Image.open(osp.join(synthetic_root, folder, names[0])) as im:
            assert im.format == 'PNG' and im.mode == 'RGBA'
            assert im.size == synthetic_size
    captions = _load(synthetic_root, 'change_captions.json')
    assert list(captions) == [f'CLEVR_default_{i:06d}.png' for i in range(40)]
    assert all(4 <= len(c) <= 8 and len(set(c)) == len(c)
               for c in captions.values())
    no_change = _load(synthetic_root, 'no_change_captions.json')
    assert list(no_change) == list(captions)
    splits = _load(synthetic_root, 'splits.json')
    assert [len(splits[s]) for s in ('train', 'val', 'test')] == [32, 4, 4]
    assert sorted(sum(splits.values(), [])) == list(range(40))
    mapping = _load(synthetic_root, 'type_mapping.json')
    assert set(mapping) == {'color', 'material', 'add', 'drop', 'move'}
    assert sorted(sum(mapping.values(), [])) == [f'{i:06d}.png'
                                                 for i in range(40)]


def test_all_change_types_appear(synthetic_root):
    mapping = _load(synthetic_root, 'type_mapping.json')
    assert all(len(v) >= 3 for v in mapping.values()), mapping
    for kind, names in mapping.items():
        assert synthetic_scene(synthetic_root, int(names[0][:6]))['change'][
            'type'] == kind


def test_semantic_change_and_distractor_differ_from_before(synthetic_root):
    scene = synthetic_scene(synthetic_root, 0)
    images = [np.asarray(Image.open(osp.join(synthetic_root, r['filename'])))
              for r in scene['images'].values()]
    # every after image is re-rendered with its own camera/light jitter
    assert not np.array_equal(images[0], images[1])
    assert not np.array_equal(images[0], images[2])
    cams = [r['camera']['position'] for r in scene['images'].values()]
    assert cams[0] != cams[1] and cams[0] != cams[2]
    for record in scene['images'].values():
        assert 3 <= len(record['objects']) <= 10


def test_writes_the_vocabulary_of_the_training_captions(synthetic_root):
    """The file holds the vocabulary a captioner builds from the training
    split as CLEVRChangeDataset reads it (change and no-change captions)."""
    vocab = CaptionVocab.from_file(osp.join(synthetic_root, 'caption_vocab_train.json'))
    train = CLEVRChangeDataset(synthetic_root, split='train')
    assert vocab.clip_ids.tolist() == build_caption_vocab(train).clip_ids.tolist()
    content = _load(synthetic_root, 'caption_vocab_train.json')
    assert content['num_captions'] == sum(
        len(train.get_data_info(i)['gt_captions']) for i in range(len(train)))


def test_deterministic_across_worker_counts(synthetic_root, synthetic_size,
                                            tmp_path):
    one = str(tmp_path / 'one')
    generate_dataset(one, 40, seed=7, image_size=synthetic_size, workers=1,
                     progress=False)
    for name in JSON_FILES + ('scenes/CLEVR_default_000011.json',
                              'sc_images/CLEVR_semantic_000011.png'):
        with open(osp.join(one, name), 'rb') as a, open(
                osp.join(synthetic_root, name), 'rb') as b:
            assert a.read() == b.read(), name
    other = str(tmp_path / 'other')
    generate_dataset(other, 2, seed=8, image_size=synthetic_size,
                     progress=False)
    assert _load(other, 'change_captions.json') != {
        k: v for k, v in _load(one, 'change_captions.json').items()
        if k in ('CLEVR_default_000000.png', 'CLEVR_default_000001.png')}


def test_bad_arguments_fail_fast(tmp_path, synthetic_root):
    with pytest.raises(ValueError, match='split_fractions'):
        generate_dataset(str(tmp_path), 2, split_fractions=(0.5, 0.1, 0.1))
    with pytest.raises(ValueError, match='image_size'):
        generate_dataset(str(tmp_path), 2, image_size=(8, 8))
    with pytest.raises(ValueError, match='workers'):
        generate_dataset(str(tmp_path), 2, workers=0)
    with pytest.raises(FileExistsError, match='change_captions.json'):
        generate_dataset(synthetic_root, 2)


def test_clevr_change_dataset_reads_output(synthetic_root):
    train = CLEVRChangeDataset(synthetic_root, split='train')
    assert len(train) == 2 * 32
    first = train.get_data_info(0)
    first_index = _load(synthetic_root, 'splits.json')['train'][0]
    assert first['pair_id'] == f'{first_index:06d}.png'
    assert first['change_type'] in ('color', 'material', 'add', 'drop',
                                    'move')
    assert train.get_data_info(1)['change_type'] == 'none'
    test = CLEVRChangeDataset(synthetic_root, split='test',
                              with_no_change=False)
    assert len(test) == 4


def test_settings_set_counts_and_ranges(tmp_path):
    """6-8 objects in every image; no jitter at all gives CLEVR's camera
    and the base lights in all three images."""
    root = str(tmp_path / 'still')
    settings = SceneSettings(min_objects=6, max_objects=8, camera_jitter=0,
                             light_jitter=0, view_jitter=0)
    generate_dataset(root, 6, seed=2, image_size=(96, 64), progress=False,
                     split_fractions=(0, 0.5, 0.5), settings=settings)
    assert check_dataset(root) == []
    assert _load(root, 'splits.json')['train'] == []
    assert not osp.exists(osp.join(root, 'caption_vocab_train.json'))  # no training split
    for index in range(6):
        for record in synthetic_scene(root, index)['images'].values():
            assert 6 <= len(record['objects']) <= 8
            camera = record['camera']
            assert (camera['azimuth'], camera['elevation'],
                    camera['distance'], camera['target']) == (
                        -43.0, 29.0, 11.2, [0.0, 0.0])
            assert record['lights']['ambient'] == pytest.approx(0.30)
            assert record['lights']['key_azimuth'] == pytest.approx(2.0)
