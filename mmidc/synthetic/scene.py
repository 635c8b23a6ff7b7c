"""Scene graphs: objects, lights, and random scenes and changes as in CLEVR.

Placement follows CLEVR's generator: positions uniform in ``[-3, 3]^2``, a
minimum gap between objects, and a margin along the camera's left/behind
directions between every pair so that spatial relations are unambiguous.
"""
import math
from dataclasses import asdict, dataclass, replace
from typing import List, Optional

import numpy as np

from .camera import Camera
from .properties import COLORS, MATERIALS, SHAPES, SIZES

PLACEMENT_RANGE = 3.0  # objects lie in [-3, 3]^2, as CLEVR
MIN_GAP = 0.25  # CLEVR's min_dist between object surfaces
RELATION_MARGIN = 0.4  # CLEVR's margin along left/behind for every pair
MIN_MOVE_DISTANCE = 1.5  # a moved object travels at least this far
MIN_OBJECTS, MAX_OBJECTS = 3, 10


@dataclass
class SceneObject:
    """One object of a scene graph.

    Args:
        id (int): Identity of the object, stable across the scene's images.
        shape (str): ``cube``, ``sphere`` or ``cylinder``.
        color (str): One of CLEVR's eight colour names.
        material (str): ``rubber`` or ``metal``.
        size (str): ``large`` or ``small``.
        x (float): Floor position.
        y (float): Floor position.
        rotation (float): Degrees about the vertical axis (cubes show it).
    """
    id: int
    shape: str
    color: str
    material: str
    size: str
    x: float
    y: float
    rotation: float = 0.0

    @property
    def radius(self) -> float:
        """Footprint radius; also the half height (cubes: r / sqrt(2))."""
        return SIZES[self.size]

    @property
    def half_height(self) -> float:
        if self.shape == 'cube':
            return self.radius / math.sqrt(2)
        return self.radius

    @property
    def center(self) -> np.ndarray:
        return np.array([self.x, self.y, self.half_height])

    def to_dict(self) -> dict:
        d = asdict(self)
        d['position'] = [float(c) for c in self.center]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> 'SceneObject':
        return cls(d['id'], d['shape'], d['color'], d['material'], d['size'],
                   d['x'], d['y'], d.get('rotation', 0.0))


@dataclass
class Lights:
    """A key light, a fill light (directional) and ambient light.

    Args:
        key_azimuth (float): Degrees; direction *towards* the key light.
        key_elevation (float): Degrees above the floor.
        key_intensity (float): Multiplier of the key light.
        fill_azimuth (float): Degrees; direction towards the fill light.
        fill_intensity (float): Multiplier of the fill light.
        ambient (float): Ambient light level.
    """
    key_azimuth: float
    key_elevation: float
    key_intensity: float
    fill_azimuth: float
    fill_intensity: float
    ambient: float

    @staticmethod
    def _direction(azimuth: float, elevation: float) -> np.ndarray:
        az, el = math.radians(azimuth), math.radians(elevation)
        return np.array([math.cos(el) * math.cos(az),
                         math.cos(el) * math.sin(az), math.sin(el)])

    @property
    def key_direction(self) -> np.ndarray:
        return self._direction(self.key_azimuth, self.key_elevation)

    @property
    def fill_direction(self) -> np.ndarray:
        return self._direction(self.fill_azimuth, 35.0)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SceneSettings:
    """Ranges of the random scenes; the defaults make the standard set.

    Args:
        min_objects (int): Fewest objects in an image (before or after the
            change). Default 3, as CLEVR.
        max_objects (int): Most objects in an image. Default 10, as CLEVR.
        camera_jitter (float): Scale of each scene's camera ranges around
            CLEVR's camera (:func:`sample_view`). Default 1.
        light_jitter (float): Scale of each scene's light ranges
            (:func:`sample_view`). Default 1.
        view_jitter (float): Scale of every image's own camera move and
            lighting change (:func:`jitter_view`). Default 1.
    """
    min_objects: int = MIN_OBJECTS
    max_objects: int = MAX_OBJECTS
    camera_jitter: float = 1.0
    light_jitter: float = 1.0
    view_jitter: float = 1.0

    def __post_init__(self):
        if not 1 <= self.min_objects < self.max_objects:
            raise ValueError(
                'SceneSettings: need 1 <= min_objects < max_objects (an add '
                'or a drop changes the count by one), got min_objects='
                f'{self.min_objects}, max_objects={self.max_objects}')
        for name in ('camera_jitter', 'light_jitter', 'view_jitter'):
            if not getattr(self, name) >= 0:
                raise ValueError(f'SceneSettings: {name} must be >= 0, got '
                                 f'{getattr(self, name)}')

    def to_dict(self) -> dict:
        return asdict(self)


DEFAULT_SETTINGS = SceneSettings()


def sample_view(rng: np.random.Generator,
                settings: SceneSettings = DEFAULT_SETTINGS):
    """The scene's base camera and lights (CLEVR's camera, jittered)."""
    c, li = settings.camera_jitter, settings.light_jitter
    camera = Camera(azimuth=-43.0 + rng.uniform(-4 * c, 4 * c),
                    elevation=29.0 + rng.uniform(-2 * c, 2 * c),
                    distance=11.2 + rng.uniform(-0.4 * c, 0.4 * c),
                    target=(0.0, 0.0))
    lights = Lights(
        key_azimuth=camera.azimuth + 45 + rng.uniform(-15 * li, 15 * li),
        key_elevation=52 + rng.uniform(-6 * li, 6 * li),
        key_intensity=0.85 + rng.uniform(-0.05 * li, 0.05 * li),
        fill_azimuth=camera.azimuth - 70 + rng.uniform(-15 * li, 15 * li),
        fill_intensity=0.25 + rng.uniform(-0.05 * li, 0.05 * li),
        ambient=0.30 + rng.uniform(-0.03 * li, 0.03 * li))
    return camera, lights


def jitter_view(camera: Camera, lights: Lights, rng: np.random.Generator,
                scale: float = 1.0):
    """A small random camera move and lighting change (each image's own);
    ``scale`` multiplies every range."""
    v = scale
    camera = replace(
        camera,
        azimuth=camera.azimuth + rng.uniform(-2.5 * v, 2.5 * v),
        elevation=camera.elevation + rng.uniform(-1.5 * v, 1.5 * v),
        distance=camera.distance + rng.uniform(-0.3 * v, 0.3 * v),
        target=(camera.target[0] + rng.uniform(-0.15 * v, 0.15 * v),
                camera.target[1] + rng.uniform(-0.15 * v, 0.15 * v)))
    lights = replace(
        lights,
        key_azimuth=lights.key_azimuth + rng.uniform(-10 * v, 10 * v),
        key_elevation=lights.key_elevation + rng.uniform(-4 * v, 4 * v),
        key_intensity=lights.key_intensity * rng.uniform(1 - 0.1 * v,
                                                         1 + 0.1 * v),
        fill_intensity=lights.fill_intensity * rng.uniform(1 - 0.15 * v,
                                                           1 + 0.15 * v),
        ambient=lights.ambient * rng.uniform(1 - 0.08 * v, 1 + 0.08 * v))
    return camera, lights


def sample_attributes(rng: np.random.Generator) -> dict:
    return {'shape': SHAPES[rng.integers(len(SHAPES))],
            'color': list(COLORS)[rng.integers(len(COLORS))],
            'material': MATERIALS[rng.integers(len(MATERIALS))],
            'size': list(SIZES)[rng.integers(len(SIZES))],
            'rotation': float(rng.uniform(0, 360))}


def position_is_free(x: float, y: float, radius: float,
                     others: List[SceneObject], directions: dict) -> bool:
    """CLEVR's placement test against every other object."""
    for other in others:
        dx, dy = x - other.x, y - other.y
        if math.hypot(dx, dy) - radius - other.radius < MIN_GAP:
            return False
        for name in ('left', 'behind'):
            margin = abs(dx * directions[name][0] + dy * directions[name][1])
            if margin < RELATION_MARGIN:
                return False
    return True


def sample_free_position(rng, radius, others, directions, max_tries=60,
                         away_from=None) -> Optional[tuple]:
    """A random free floor position, optionally far from ``away_from``."""
    for _ in range(max_tries):
        x, y = rng.uniform(-PLACEMENT_RANGE, PLACEMENT_RANGE, size=2)
        if away_from is not None and math.hypot(
                x - away_from[0], y - away_from[1]) < MIN_MOVE_DISTANCE:
            continue
        if position_is_free(x, y, radius, others, directions):
            return float(x), float(y)
    return None


def sample_objects(rng, num_objects: int,
                   directions: dict) -> Optional[List[SceneObject]]:
    """``num_objects`` random non-overlapping objects, or None on failure."""
    objects = []
    for obj_id in range(num_objects):
        attrs = sample_attributes(rng)
        pos = sample_free_position(rng, SIZES[attrs['size']], objects,
                                   directions)
        if pos is None:
            return None
        objects.append(SceneObject(obj_id, x=pos[0], y=pos[1], **attrs))
    return objects


def sample_change(rng, objects: List[SceneObject], change_type: str,
                  directions: dict):
    """Apply one semantic change; returns ``(after_objects, change)``.

    ``change`` names the changed object's id and, for attribute changes,
    the old and new value. Returns None if no valid change was found.
    """
    target = objects[rng.integers(len(objects))]
    others = [o for o in objects if o.id != target.id]
    change = {'type': change_type, 'object_id': target.id}
    if change_type in ('color', 'material'):
        old = getattr(target, change_type)
        if change_type == 'color':
            others = [c for c in COLORS if c != old]
            new = others[rng.integers(len(others))]
        else:
            new = 'metal' if old == 'rubber' else 'rubber'
        change.update({'from': old, 'to': new})
        after = [replace(o, **{change_type: new}) if o.id == target.id else o
                 for o in objects]
    elif change_type == 'drop':
        after = others
    elif change_type == 'add':
        attrs = sample_attributes(rng)
        pos = sample_free_position(rng, SIZES[attrs['size']], objects,
                                   directions)
        if pos is None:
            return None
        new_id = max(o.id for o in objects) + 1
        change['object_id'] = new_id
        after = objects + [SceneObject(new_id, x=pos[0], y=pos[1], **attrs)]
    elif change_type == 'move':
        pos = sample_free_position(rng, target.radius, others, directions,
                                   away_from=(target.x, target.y))
        if pos is None:
            return None
        change.update({'from': [target.x, target.y], 'to': list(pos)})
        after = [replace(o, x=pos[0], y=pos[1]) if o.id == target.id else o
                 for o in objects]
    else:
        raise ValueError(f'unknown change type {change_type!r}')
    return after, change
