"""The synthetic set's caption checker: true captions pass, wrong ones and
inconsistent scene graphs are caught, relations resolve references."""
import copy
import os.path as osp

import pytest

from mmidc.synthetic import (check_change_caption, check_dataset,
                             check_no_change_caption, check_scene_graph,
                             resolve_reference)
from mmidc.synthetic.camera import Camera
from mmidc.synthetic.caption_checker import judge_change_caption
from mmidc.synthetic.scene import SceneObject
from tests.helpers.pair_trees import read_json, synthetic_scene


def _first_scene_of(root, kind):
    names = read_json(osp.join(root, 'type_mapping.json'))[kind]
    return synthetic_scene(root, int(names[0][:6]))


def _full_name(obj):
    return f'{obj["size"]} {obj["color"]} {obj["material"]} {obj["shape"]}'


def test_every_caption_is_true(synthetic_root):
    assert check_dataset(synthetic_root) == []


def test_checker_rejects_wrong_captions(synthetic_root):
    scene = _first_scene_of(synthetic_root, 'color')
    change = scene['change']
    before = scene['images']['default']['objects']
    target = next(o for o in before if o['id'] == change['object_id'])
    others = [o for o in before if o['id'] != change['object_id']]
    wrong = next(c for c in ('red', 'blue', 'gray') if c != change['to'])
    ref = next(c for c in read_json(osp.join(
        synthetic_root, 'change_captions.json'))[scene['image_filename']]
    ).split(' changed to ')[0].split(' turned ')[0].split(' became ')[0]
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


def test_the_verdict_says_which_attributes_of_the_changed_object_are_named(
        synthetic_root):
    scene = _first_scene_of(synthetic_root, 'color')
    change = scene['change']
    target = next(o for o in scene['images']['default']['objects']
                  if o['id'] == change['object_id'])
    other = next(c for c in ('red', 'blue') if c != target['color'])
    shape = next(s for s in ('cube', 'sphere', 'cylinder')
                 if s != target['shape'])
    named = judge_change_caption(
        f'the {_full_name(target)} turned {change["to"]}',
        scene).named_attributes
    assert named == {a: (target[a], target[a])
                     for a in ('size', 'color', 'material', 'shape')}
    # wrong words are named with the object's own values beside them; a
    # generic noun names no shape; an anchor's words are not the target's
    named = judge_change_caption(
        f'the {other} {shape} behind the big red thing turned blue',
        scene).named_attributes
    assert named == dict(color=(other, target['color']),
                         shape=(shape, target['shape']))
    assert judge_change_caption(f'the {target["color"]} thing turned blue',
                                scene).named_attributes == dict(
        color=(target['color'], target['color']))
    # nothing is named where the form or the phrase does not parse
    assert judge_change_caption('the cube exploded',
                                scene).named_attributes is None
    assert judge_change_caption('the pyramid turned blue',
                                scene).named_attributes is None
