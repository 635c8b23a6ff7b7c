"""Ray intersection with CLEVR's shapes: distances and normals of known
hits, misses at infinity, a cube's rotation."""
import math

import numpy as np
import pytest

from mmidc.synthetic.scene import SceneObject
from mmidc.synthetic.shapes import bounding_box_corners, intersect


def _ray(origin, direction):
    return (tuple(np.array([c], dtype=np.float64) for c in origin),
            tuple(np.array([c], dtype=np.float64) for c in direction))


def _object(shape, rotation=0.0):
    return SceneObject(0, shape, 'red', 'rubber', 'large', 1.0, 2.0, rotation)


def test_hits_from_above_and_misses():
    down = _ray((1.0, 2.0, 5.0), (0.0, 0.0, -1.0))
    for shape in ('sphere', 'cube', 'cylinder'):
        obj = _object(shape)
        t, normals = intersect(obj, *down)
        assert t[0] == pytest.approx(5.0 - 2 * obj.half_height)  # the top
        np.testing.assert_allclose([n[0] for n in normals], (0, 0, 1), atol=1e-9)
        t, _ = intersect(obj, *_ray((4.0, 2.0, 5.0), (0.0, 0.0, -1.0)), with_normals=False)
        assert np.isinf(t[0])


def test_side_hits_and_a_rotated_cube():
    half = 0.7 / math.sqrt(2)
    along_x = _ray((-5.0, 2.0, half), (1.0, 0.0, 0.0))
    t, normals = intersect(_object('cube'), *along_x)
    assert t[0] == pytest.approx(6.0 - half)
    np.testing.assert_allclose([n[0] for n in normals], (-1, 0, 0), atol=1e-9)
    t, _ = intersect(_object('cube', rotation=45.0), *along_x)
    assert t[0] == pytest.approx(6.0 - 0.7)  # a corner points at the ray
    t, normals = intersect(_object('cylinder'), *_ray((-5.0, 2.0, 0.7), (1.0, 0.0, 0.0)))
    assert t[0] == pytest.approx(6.0 - 0.7)
    np.testing.assert_allclose([n[0] for n in normals], (-1, 0, 0), atol=1e-9)
    with pytest.raises(ValueError, match='unknown shape'):
        intersect(_object('cone'), *along_x)


def test_bounding_box():
    corners = bounding_box_corners(_object('cylinder'))
    assert corners.shape == (8, 3)
    np.testing.assert_allclose(corners.min(0), (0.3, 1.3, 0.0))
    np.testing.assert_allclose(corners.max(0), (1.7, 2.7, 1.4))
