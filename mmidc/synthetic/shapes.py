"""Vectorised ray intersection with CLEVR's three shapes.

Vectors are passed as ``(x, y, z)`` tuples of numpy arrays (or scalars) of one
common broadcast shape, which keeps every operation on contiguous arrays.
``intersect`` returns the distance ``t`` to the first hit in front of the
ray origin (``inf`` on a miss) and, if asked, the unit normals there.
"""
import math

import numpy as np

from .scene import SceneObject

EPS = 1e-4


def _sphere(center, radius, origin, direction, with_normals):
    ox, oy, oz = (o - c for o, c in zip(origin, center))
    dx, dy, dz = direction
    b = ox * dx + oy * dy + oz * dz
    disc = b * b - (ox * ox + oy * oy + oz * oz - radius * radius)
    t = -b - np.sqrt(np.maximum(disc, 0.0))
    t = np.where((disc > 0) & (t > EPS), t, np.inf)
    if not with_normals:
        return t, None
    tf = np.where(np.isfinite(t), t, 0.0)
    normals = tuple((o + tf * d) / radius
                    for o, d in zip((ox, oy, oz), direction))
    return t, normals


def _cube(center, half_side, rotation_deg, origin, direction, with_normals):
    cos = math.cos(math.radians(rotation_deg))
    sin = math.sin(math.radians(rotation_deg))
    # into the cube's frame: translate, then rotate by -rotation about z
    px, py, oz = (o - c for o, c in zip(origin, center))
    ox, oy = cos * px + sin * py, -sin * px + cos * py
    dx = cos * direction[0] + sin * direction[1]
    dy = -sin * direction[0] + cos * direction[1]
    dz = direction[2]
    enters, exits = [], []
    with np.errstate(divide='ignore', invalid='ignore'):
        for o, d in ((ox, dx), (oy, dy), (oz, dz)):
            inv = 1.0 / d
            t1, t2 = (-half_side - o) * inv, (half_side - o) * inv
            enters.append(np.minimum(t1, t2))
            exits.append(np.maximum(t1, t2))
    t_near = np.maximum(np.maximum(enters[0], enters[1]), enters[2])
    t_far = np.minimum(np.minimum(exits[0], exits[1]), exits[2])
    t = np.where((t_near < t_far) & (t_near > EPS), t_near, np.inf)
    if not with_normals:
        return t, None
    # the entered face: the axis whose slab was entered last
    nx = np.where(enters[0] == t_near, -np.sign(dx), 0.0)
    ny = np.where(enters[1] == t_near, -np.sign(dy), 0.0)
    nz = np.where(enters[2] == t_near, -np.sign(dz), 0.0)
    return t, (cos * nx - sin * ny, sin * nx + cos * ny, nz)


def _cylinder(center, radius, half_height, origin, direction, with_normals):
    ox, oy, oz = (o - c for o, c in zip(origin, center))
    dx, dy, dz = direction
    # side wall: |o_xy + t d_xy| = radius, within the height
    a = dx * dx + dy * dy
    b = ox * dx + oy * dy
    disc = b * b - a * (ox * ox + oy * oy - radius * radius)
    with np.errstate(divide='ignore', invalid='ignore'):
        t_side = (-b - np.sqrt(np.maximum(disc, 0.0))) / a
        ok = ((disc > 0) & (t_side > EPS)
              & (np.abs(oz + t_side * dz) <= half_height))
        t_side = np.where(ok, t_side, np.inf)
        t_cap = np.inf
        for z_cap in (half_height, -half_height):  # top and bottom discs
            tc = (z_cap - oz) / dz
            cx, cy = ox + tc * dx, oy + tc * dy
            ok = (tc > EPS) & (cx * cx + cy * cy <= radius * radius)
            t_cap = np.minimum(t_cap, np.where(ok, tc, np.inf))
    t = np.minimum(t_side, t_cap)
    if not with_normals:
        return t, None
    tf = np.where(np.isfinite(t), t, 0.0)
    on_side = t_side <= t_cap
    nx = np.where(on_side, (ox + tf * dx) / radius, 0.0)
    ny = np.where(on_side, (oy + tf * dy) / radius, 0.0)
    nz = np.where(on_side, 0.0, np.sign(oz + tf * dz))
    return t, (nx, ny, nz)


def intersect(obj: SceneObject, origin, direction, with_normals=True):
    """First hit of rays with ``obj``: ``t`` and normals (or None)."""
    center = tuple(float(c) for c in obj.center)
    if obj.shape == 'sphere':
        return _sphere(center, obj.radius, origin, direction, with_normals)
    if obj.shape == 'cube':
        return _cube(center, obj.half_height, obj.rotation, origin,
                     direction, with_normals)
    if obj.shape == 'cylinder':
        return _cylinder(center, obj.radius, obj.half_height, origin,
                         direction, with_normals)
    raise ValueError(f'unknown shape {obj.shape!r}')


def bounding_box_corners(obj: SceneObject) -> np.ndarray:
    """The 8 corners ``[8, 3]`` of the object's axis-aligned bounding box."""
    r, h = obj.radius, obj.half_height
    offsets = np.array([[sx * r, sy * r, sz * h] for sx in (-1, 1)
                        for sy in (-1, 1) for sz in (-1, 1)])
    return obj.center + offsets
