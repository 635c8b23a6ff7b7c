"""Synthetic CLEVR-Change generator: layout, determinism, caption truth."""
import copy
import json
import os
import os.path as osp

import numpy as np
import pytest
from PIL import Image

from mmidc.datasets.synthetic import (PRESETS, SceneSettings,
                                      check_change_caption, check_dataset,
                                      check_no_change_caption,
                                      check_scene_graph, generate_dataset,
                                      resolve_reference)
from mmidc.datasets.synthetic.camera import Camera
from mmidc.datasets.synthetic.scene import (Lights, SceneObject, jitter_view,
                                            sample_view)
from tests.helpers import load_tool

SIZE = (192, 128)  # small images keep the tests fast
JSON_FILES = ('change_captions.json', 'no_change_captions.json',
              'splits.json', 'type_mapping.json')


@pytest.fixture(scope='module')
def synthetic_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('synthetic'))
    generate_dataset(root, 40, seed=7, image_size=SIZE, workers=2,
                     progress=False)
    return root


def _load(root, name):
    with open(osp.join(root, name)) as f:
        return json.load(f)


def _scene(root, index):
    return _load(root, f'scenes/CLEVR_default_{index:06d}.json')


def test_layout_and_file_names(synthetic_root):
    assert sorted(os.listdir(synthetic_root)) == sorted(
        ['images', 'sc_images', 'nsc_images', 'scenes', *JSON_FILES])
    for folder, prefix in (('images', 'CLEVR_default'),
                           ('sc_images', 'CLEVR_semantic'),
                           ('nsc_images', 'CLEVR_nonsemantic')):
        names = sorted(os.listdir(osp.join(synthetic_root, folder)))
        assert names == [f'{prefix}_{i:06d}.png' for i in range(40)]
        with Image.open(osp.join(synthetic_root, folder, names[0])) as im:
            assert im.format == 'PNG' and im.mode == 'RGBA'
            assert im.size == SIZE
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
        assert _scene(synthetic_root, int(names[0][:6]))['change'][
            'type'] == kind


def test_semantic_change_and_distractor_differ_from_before(synthetic_root):
    scene = _scene(synthetic_root, 0)
    images = [np.asarray(Image.open(osp.join(synthetic_root, r['filename'])))
              for r in scene['images'].values()]
    # every after image is re-rendered with its own camera/light jitter
    assert not np.array_equal(images[0], images[1])
    assert not np.array_equal(images[0], images[2])
    cams = [r['camera']['position'] for r in scene['images'].values()]
    assert cams[0] != cams[1] and cams[0] != cams[2]
    for record in scene['images'].values():
        assert 3 <= len(record['objects']) <= 10


def test_every_caption_is_true(synthetic_root):
    assert check_dataset(synthetic_root) == []


def test_deterministic_across_worker_counts(synthetic_root, tmp_path):
    one = str(tmp_path / 'one')
    generate_dataset(one, 40, seed=7, image_size=SIZE, workers=1,
                     progress=False)
    for name in JSON_FILES + ('scenes/CLEVR_default_000011.json',
                              'sc_images/CLEVR_semantic_000011.png'):
        with open(osp.join(one, name), 'rb') as a, open(
                osp.join(synthetic_root, name), 'rb') as b:
            assert a.read() == b.read(), name
    other = str(tmp_path / 'other')
    generate_dataset(other, 2, seed=8, image_size=SIZE, progress=False)
    assert _load(other, 'change_captions.json') != {
        k: v for k, v in _load(one, 'change_captions.json').items()
        if k in ('CLEVR_default_000000.png', 'CLEVR_default_000001.png')}


def _first_scene_of(root, kind):
    names = _load(root, 'type_mapping.json')[kind]
    return _scene(root, int(names[0][:6]))


def _full_name(obj):
    return f'{obj["size"]} {obj["color"]} {obj["material"]} {obj["shape"]}'


def test_checker_rejects_wrong_captions(synthetic_root):
    scene = _first_scene_of(synthetic_root, 'color')
    change = scene['change']
    before = scene['images']['default']['objects']
    target = next(o for o in before if o['id'] == change['object_id'])
    others = [o for o in before if o['id'] != change['object_id']]
    wrong = next(c for c in ('red', 'blue', 'gray') if c != change['to'])
    ref = next(c for c in _load(synthetic_root, 'change_captions.json')[
        scene['image_filename']]).split(' changed to ')[0].split(
            ' turned ')[0].split(' became ')[0]
    assert check_change_caption(f'{ref} changed to {change["to"]}',
                                scene) == []
    assert check_change_caption(f'{ref} changed to {wrong}', scene)
    # wrong change type, and a form that does not exist
    assert check_change_caption(f'{ref} has disappeared', scene)
    assert check_change_caption(f'{ref} exploded', scene)
    # ambiguous: a generic noun in a scene of several objects
    assert check_change_caption(f'the thing turned {change["to"]}', scene)
    # refers to another object
    assert check_change_caption(
        f'the {_full_name(others[0])} turned {change["to"]}', scene)
    # a word the vocabulary does not have
    assert check_change_caption(
        f'the {_full_name(target)} turned {change["to"]}'.replace(
            target['shape'], 'pyramid'), scene)
    assert check_no_change_caption('there is no change') == []
    assert check_no_change_caption('the cube moved')


def test_checker_rejects_inconsistent_scene_graph(synthetic_root):
    scene = _first_scene_of(synthetic_root, 'move')
    assert check_scene_graph(scene) == []
    broken = copy.deepcopy(scene)
    broken['images']['nonsemantic']['objects'][0]['color'] = 'cyan' if \
        broken['images']['nonsemantic']['objects'][0]['color'] != 'cyan' \
        else 'red'
    assert check_scene_graph(broken)
    broken = copy.deepcopy(scene)
    moved = next(o for o in broken['images']['semantic']['objects']
                 if o['id'] == scene['change']['object_id'])
    old = next(o for o in broken['images']['default']['objects']
               if o['id'] == scene['change']['object_id'])
    moved['x'], moved['y'] = old['x'], old['y']
    assert check_scene_graph(broken)


def test_relations_disambiguate_twins():
    camera = Camera(azimuth=-90, elevation=30, distance=11, target=(0, 0))
    directions = camera.ground_directions()  # camera on -y looking at +y
    twin_left = SceneObject(0, 'cube', 'red', 'rubber', 'small', -2, 0)
    twin_right = SceneObject(1, 'cube', 'red', 'rubber', 'small', 2, 0)
    cylinder = SceneObject(2, 'cylinder', 'blue', 'metal', 'large', 0, 1.5)
    objects = [twin_left, twin_right, cylinder]
    assert resolve_reference('small red cube to the left of the cylinder',
                             objects, directions) is twin_left
    assert resolve_reference('red block that is right of the big object',
                             objects, directions) is twin_right
    with pytest.raises(ValueError, match='matches 2 objects'):
        resolve_reference('small red cube', objects, directions)
    with pytest.raises(ValueError, match='matches 2 objects'):
        resolve_reference('small red cube in front of the cylinder', objects,
                          directions)
    with pytest.raises(ValueError, match='anchor'):
        resolve_reference('cylinder behind the red cube', objects,
                          directions)


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
    datasets = pytest.importorskip('mmidc.datasets')
    if not hasattr(datasets, 'CLEVRChangeDataset'):
        pytest.skip('CLEVRChangeDataset is not there yet')
    train = datasets.CLEVRChangeDataset(synthetic_root, split='train')
    assert len(train) == 2 * 32
    first = train.get_data_info(0)
    first_index = _load(synthetic_root, 'splits.json')['train'][0]
    assert first['pair_id'] == f'{first_index:06d}.png'
    assert first['change_type'] in ('color', 'material', 'add', 'drop',
                                    'move')
    assert train.get_data_info(1)['change_type'] == 'none'
    test = datasets.CLEVRChangeDataset(synthetic_root, split='test',
                                       with_no_change=False)
    assert len(test) == 4


def test_default_settings_draw_the_standard_views():
    """The settings' defaults draw exactly the standard set's views: the
    formulas of the standard set, written out here, on the same stream."""
    views = sample_view(np.random.default_rng([3, 1]))
    jittered = jitter_view(*views, np.random.default_rng([3, 2]))
    rng = np.random.default_rng([3, 1])
    camera = Camera(azimuth=-43.0 + rng.uniform(-4, 4),
                    elevation=29.0 + rng.uniform(-2, 2),
                    distance=11.2 + rng.uniform(-0.4, 0.4), target=(0.0, 0.0))
    lights = Lights(key_azimuth=camera.azimuth + 45 + rng.uniform(-15, 15),
                    key_elevation=52 + rng.uniform(-6, 6),
                    key_intensity=0.85 + rng.uniform(-0.05, 0.05),
                    fill_azimuth=camera.azimuth - 70 + rng.uniform(-15, 15),
                    fill_intensity=0.25 + rng.uniform(-0.05, 0.05),
                    ambient=0.30 + rng.uniform(-0.03, 0.03))
    assert views == (camera, lights)
    rng = np.random.default_rng([3, 2])
    camera = Camera(camera.azimuth + rng.uniform(-2.5, 2.5),
                    camera.elevation + rng.uniform(-1.5, 1.5),
                    camera.distance + rng.uniform(-0.3, 0.3),
                    (rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15)))
    lights = Lights(lights.key_azimuth + rng.uniform(-10, 10),
                    lights.key_elevation + rng.uniform(-4, 4),
                    lights.key_intensity * rng.uniform(0.9, 1.1),
                    lights.fill_azimuth,
                    lights.fill_intensity * rng.uniform(0.85, 1.15),
                    lights.ambient * rng.uniform(0.92, 1.08))
    assert jittered == (camera, lights)
    assert SceneSettings() == SceneSettings(
        min_objects=3, max_objects=10, camera_jitter=1.0, light_jitter=1.0,
        view_jitter=1.0)


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
    for index in range(6):
        for record in _scene(root, index)['images'].values():
            assert 6 <= len(record['objects']) <= 8
            camera = record['camera']
            assert (camera['azimuth'], camera['elevation'],
                    camera['distance'], camera['target']) == (
                        -43.0, 29.0, 11.2, [0.0, 0.0])
            assert record['lights']['ambient'] == pytest.approx(0.30)
            assert record['lights']['key_azimuth'] == pytest.approx(2.0)
    with pytest.raises(ValueError, match='min_objects < max_objects'):
        SceneSettings(min_objects=5, max_objects=5)
    with pytest.raises(ValueError, match='view_jitter'):
        SceneSettings(view_jitter=-1)


def test_shifted_preset_from_the_tool(tmp_path):
    tool = load_tool('tools/generate_synthetic_clevr_change.py')
    _, args = tool.parse_args(['out', '--preset', 'shifted', '--num-scenes',
                               '4', '--image-size', '96x64'])
    kwargs = tool.generation_kwargs(args)
    assert kwargs == dict(PRESETS['shifted'], num_scenes=4,
                          image_size=(96, 64))
    assert kwargs['seed'] != 0 and kwargs['settings'].min_objects == 6
    _, args = tool.parse_args(['out', '--max-objects', '7'])
    assert tool.generation_kwargs(args) == dict(
        num_scenes=1000, seed=0, image_size=(480, 320),
        split_fractions=(0.8, 0.1, 0.1),
        settings=SceneSettings(max_objects=7))
    root = str(tmp_path / 'shifted')
    tool.main([root, '--preset', 'shifted', '--num-scenes', '4',
               '--image-size', '96x64'])
    splits = _load(root, 'splits.json')
    assert splits['train'] == [] and len(splits['test']) == 2
    scene = _scene(root, 0)
    assert all(len(r['objects']) >= 6 for r in scene['images'].values())
    assert scene['images']['default']['image_size'] == [96, 64]
