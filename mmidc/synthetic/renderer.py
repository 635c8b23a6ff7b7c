"""CPU ray-casting renderer for CLEVR-like scenes (numpy, no GPU).

Each object is ray-cast only inside its projected bounding box and merged
into a depth buffer; the floor ``z = 0`` fills the rest. Shading: ambient,
a key light with cast shadows (tested against every object inside the
shadow's projected box) and a fill light. Rubber is diffuse with a faint
sheen; metal mostly reflects a sky/floor environment tinted by its colour
and has a sharp specular highlight, so the two materials look different.
Per-pixel vectors are ``(x, y, z)`` tuples of float32 ``[H, W]`` arrays.
"""
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .camera import Camera
from .properties import COLORS
from .scene import Lights, SceneObject
from .shapes import bounding_box_corners, intersect

FLOOR_ALBEDO = 0.50
SHADOW_STRENGTH = 0.75  # fraction of the key light a shadow removes
# Key-light directions (degrees of azimuth, elevation off the key light)
# whose shadows are averaged: an area light's soft shadow edges.
SHADOW_SAMPLES = ((1.5, 1.0), (-1.5, -1.0))


@dataclass
class RenderResult:
    """A rendered image and the visible pixel count of each object.

    Args:
        image (np.ndarray): ``uint8 [H, W, 4]`` RGBA, alpha 255.
        visible_pixels (dict): Object id -> number of pixels it covers.
    """
    image: np.ndarray
    visible_pixels: dict


def _screen_boxes(camera, points, width, height) -> List[Optional[tuple]]:
    """Per object, slices ``(rows, cols)`` covering its projected points.

    ``points`` is ``[K, P, 3]`` (``P`` points of each of ``K`` objects);
    an object off screen gets None.
    """
    num_objects = len(points)
    if num_objects == 0:
        return []
    xy, depth = camera.project(points.reshape(-1, 3), width, height)
    xy = xy.reshape(num_objects, -1, 2)  # [K, P, 2]
    behind_camera = (depth.reshape(num_objects, -1) <= 0).any(axis=1)
    low = np.floor(xy.min(axis=1)).astype(int)  # [K, 2]
    high = np.ceil(xy.max(axis=1)).astype(int) + 1
    boxes = []
    for k in range(num_objects):
        if behind_camera[k]:
            boxes.append((slice(0, height), slice(0, width)))
            continue
        x0, y0 = max(low[k, 0], 0), max(low[k, 1], 0)
        x1, y1 = min(high[k, 0], width), min(high[k, 1], height)
        boxes.append((slice(y0, y1), slice(x0, x1))
                     if x0 < x1 and y0 < y1 else None)
    return boxes


def _direction(azimuth_deg, elevation_deg) -> tuple:
    az, el = np.radians(azimuth_deg), np.radians(elevation_deg)
    return (float(np.cos(el) * np.cos(az)), float(np.cos(el) * np.sin(az)),
            float(np.sin(el)))


def _cast_geometry(objects, eye, camera, dirs):
    """Depth, object index (-1: floor) and normals of every pixel."""
    height, width = dirs[0].shape
    with np.errstate(divide='ignore'):
        depth = np.where(dirs[2] < -1e-6, -eye[2] / dirs[2],
                         np.inf).astype(np.float32)  # [H, W]
    index = np.full((height, width), -1, dtype=np.int16)
    normals = tuple(np.zeros((height, width), np.float32) for _ in range(3))
    corners = np.array([bounding_box_corners(o) for o in objects])
    boxes = _screen_boxes(camera, corners.reshape(-1, 8, 3), width, height)
    for k, (obj, box) in enumerate(zip(objects, boxes)):
        if box is None:
            continue
        t, obj_normals = intersect(obj, eye, tuple(d[box] for d in dirs))
        closer = t < depth[box]  # [h, w]
        depth[box][closer] = t[closer]
        index[box][closer] = k
        for buffer, component in zip(normals, obj_normals):
            buffer[box][closer] = component[closer]
    return depth, index, normals


def _cast_shadows(objects, eye, camera, dirs, depth, index, lights):
    """Fraction ``[H, W]`` of the key light that objects block.

    Shadow rays are traced at every second pixel and row (the map is
    upsampled) for each of the ``SHADOW_SAMPLES`` light directions.
    """
    height, width = depth.shape
    dirs = tuple(d[::2, ::2] for d in dirs)  # [H/2, W/2] each
    depth, index = depth[::2, ::2], index[::2, ::2]
    shadow = np.zeros(depth.shape, np.float32)
    seen = np.isfinite(depth)
    corners = np.array([bounding_box_corners(o) for o in objects]
                       ).reshape(-1, 8, 3)  # [K, 8, 3]
    for d_az, d_el in SHADOW_SAMPLES:
        light = _direction(lights.key_azimuth + d_az,
                           lights.key_elevation + d_el)
        # the shadow volume: each box corner and its projection on the floor
        on_floor = corners - np.array(light) * (corners[..., 2:] / light[2])
        boxes = _screen_boxes(camera, np.concatenate([corners, on_floor], 1),
                              width // 2, height // 2)
        blocked = np.zeros(depth.shape, dtype=bool)
        for k, (obj, box) in enumerate(zip(objects, boxes)):
            if box is None:
                continue
            # convex shapes: an object never shadows itself
            receivers = seen[box] & (index[box] != k)  # [h, w]
            t_hit = depth[box][receivers]  # [R]
            points = tuple(e + t_hit * d[box][receivers]
                           for e, d in zip(eye, dirs))
            t, _ = intersect(obj, points, light, with_normals=False)
            blocked[box][receivers] |= np.isfinite(t)
        shadow += blocked
    shadow /= len(SHADOW_SAMPLES)
    return np.repeat(np.repeat(shadow, 2, axis=0), 2, axis=1)[:height, :width]


def _environment(reflected, key):
    """Brightness ``[M]`` of a grey studio seen along reflected rays.

    A sky that brightens upwards, a dark floor, a bright band at the horizon
    and a soft glint around the key light: flat metal faces pick up
    gradients and hot spots from it, which rubber never shows.
    """
    z = reflected[:, 2]
    sky = 0.3 + 0.6 * np.clip(z * 1.5, 0.0, 1.0)
    floor = 0.42 - 0.2 * np.clip(-2 * z, 0.0, 1.0)
    horizon = 0.6 * np.exp(-(z - 0.03)**2 / 0.003)
    glint = 1.3 * np.clip(reflected @ key, 0.0, 1.0)**12
    return np.where(z > 0, sky, floor) + horizon + glint


def _shade_objects(objects, n, view, lit, k, lights):
    """RGB ``[M, 3]`` in 0..1 of ``M`` object pixels (object index ``k``)."""
    key = np.array(lights.key_direction, np.float32)
    fill = np.array(lights.fill_direction, np.float32)
    base = np.array([COLORS[o.color] for o in objects],
                    np.float32)[k] / 255.0  # [M, 3]
    metal = np.array([o.material == 'metal' for o in objects])[k]  # [M]
    n_dot_key = np.clip(n @ key, 0.0, None) * lit  # [M]
    n_dot_fill = np.clip(n @ fill, 0.0, None)
    half = key + view  # [M, 3] Blinn-Phong half vector
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    n_dot_half = np.clip(np.sum(n * half, axis=-1), 0.0, None)
    diffuse = (lights.ambient + lights.key_intensity * n_dot_key
               + lights.fill_intensity * n_dot_fill)
    rubber = (base * diffuse[:, None]
              + (0.06 * lit * n_dot_half**10)[:, None])
    n_dot_view = np.sum(n * view, axis=-1)
    reflected = 2 * n_dot_view[:, None] * n - view  # [M, 3]
    env = _environment(reflected, key)[:, None]  # [M, 1]
    metal_rgb = (base * (0.05 + 0.15 * n_dot_key[:, None] + 0.8 * env)
                 + 0.12 * env + (1.0 * lit * n_dot_half**80)[:, None])
    return np.where(metal[:, None], metal_rgb, rubber)


def visible_pixel_counts(objects: List[SceneObject], camera: Camera,
                         width: int, height: int) -> dict:
    """Object id -> visible pixels, from the geometry pass alone."""
    eye = tuple(float(c) for c in camera.position)
    _, index, _ = _cast_geometry(objects, eye, camera,
                                 camera.ray_directions(width, height))
    counts = np.bincount(index[index >= 0], minlength=len(objects))
    return {o.id: int(c) for o, c in zip(objects, counts)}


def render(objects: List[SceneObject], camera: Camera, lights: Lights,
           width: int, height: int) -> RenderResult:
    """Render ``objects`` seen by ``camera`` under ``lights``."""
    eye = tuple(float(c) for c in camera.position)
    dirs = camera.ray_directions(width, height)  # 3 x [H, W]
    depth, index, normals = _cast_geometry(objects, eye, camera, dirs)
    lit = 1.0 - SHADOW_STRENGTH * _cast_shadows(
        objects, eye, camera, dirs, depth, index, lights)  # [H, W]

    # floor: diffuse grey, slightly darker far from the camera
    key_z, fill_z = lights.key_direction[2], lights.fill_direction[2]
    falloff = np.clip(1.12 - 0.012 * depth, 0.8, 1.1)
    floor = (255 * FLOOR_ALBEDO) * falloff * (
        lights.ambient + lights.key_intensity * key_z * lit
        + lights.fill_intensity * fill_z)
    image = np.empty((height, width, 4), dtype=np.uint8)
    image[..., :3] = np.clip(floor + 0.5, 0, 255)[..., None]
    image[..., 3] = 255

    on_object = index >= 0
    k = index[on_object]  # [M]
    if k.size:
        n = np.stack([c[on_object] for c in normals], axis=-1)  # [M, 3]
        view = -np.stack([d[on_object] for d in dirs], axis=-1)  # [M, 3]
        rgb = _shade_objects(objects, n, view, lit[on_object], k, lights)
        image[on_object, :3] = np.clip(rgb * 255.0 + 0.5, 0, 255)
    counts = np.bincount(k, minlength=len(objects))
    return RenderResult(image, {o.id: int(c) for o, c in zip(objects, counts)})
