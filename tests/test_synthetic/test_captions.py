"""Captions from a scene graph: referring expressions that pick out the
object (with a relation when a twin exists), 4 to 8 distinct captions."""
import numpy as np
import pytest

from mmidc.synthetic.camera import Camera
from mmidc.synthetic.captions import (ReferringExpressions, attribute_phrase,
                                      change_captions, matching,
                                      no_change_captions, relation_holds)
from mmidc.synthetic.properties import NO_CHANGE_SENTENCES, RELATION_PHRASES
from mmidc.synthetic.scene import SceneObject

DIRECTIONS = Camera(azimuth=-90.0, elevation=35.0, distance=10.0,
                    target=(0.0, 0.0)).ground_directions()


def _obj(id, x, y, color='red', shape='cube'):
    return SceneObject(id, shape, color, 'rubber', 'large', x, y)


def test_relations_and_matching():
    # camera at -y looking towards +y: behind is +y, left is -x
    near, far = _obj(0, 0.0, -2.0), _obj(1, 0.0, 2.0)
    assert relation_holds(far, near, 'behind', DIRECTIONS)
    assert relation_holds(near, far, 'front', DIRECTIONS)
    assert not relation_holds(far, near, 'front', DIRECTIONS)
    assert matching([near, far, _obj(2, 1, 1, 'blue')], near, ('color', )) == [near, far]
    rng = np.random.default_rng(0)
    assert attribute_phrase(rng, near, ()) in ('object', 'thing')
    assert attribute_phrase(rng, near, ('color', 'shape')) in ('red cube', 'red block')


def test_a_twin_is_told_apart_by_a_relation():
    # both twins in front of the sphere: only "left" picks one out
    twin_a, twin_b = _obj(0, -2.0, -0.5), _obj(1, 2.0, -0.5)
    anchor = _obj(2, 0.0, 0.0, 'blue', 'sphere')
    refs = ReferringExpressions([twin_a, twin_b, anchor], twin_a, DIRECTIONS)
    assert not refs.unique_subsets and refs
    rng = np.random.default_rng(0)
    for _ in range(5):  # to the left of the sphere, the only anchor
        expression = refs.sample(rng)
        assert any(phrase in expression for phrase in RELATION_PHRASES['left'])
        anchor_words = expression.rsplit(' the ', 1)[1].split()
        assert {'blue', 'sphere', 'ball'} & set(anchor_words)  # names the sphere
    with pytest.raises(ValueError, match='cannot be referred to uniquely'):
        change_captions(rng, [twin_a, twin_b], [twin_a, twin_b],
                        dict(type='move', object_id=0), DIRECTIONS)


def test_change_and_no_change_captions():
    rng = np.random.default_rng(1)
    scene = [_obj(0, -2.0, 0.0), _obj(1, 2.0, 0.0, 'green', 'sphere')]
    captions = change_captions(rng, scene, scene,
                               dict(type='color', object_id=0, to='blue'), DIRECTIONS)
    assert 4 <= len(captions) <= 8 and len(set(captions)) == len(captions)
    assert all(c.endswith(' blue') and 'green' not in c for c in captions)
    sentences = no_change_captions(rng)
    assert 4 <= len(sentences) <= 8 and set(sentences) <= set(NO_CHANGE_SENTENCES)
    assert len(set(sentences)) == len(sentences)
