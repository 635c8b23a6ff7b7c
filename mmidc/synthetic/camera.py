"""A pinhole camera looking down at the floor plane ``z = 0``."""
import math
from dataclasses import dataclass

import numpy as np

# CLEVR renders with a 35 mm lens on a 32 mm wide sensor.
CLEVR_HFOV_DEG = 2 * math.degrees(math.atan(16 / 35))


@dataclass
class Camera:
    """Perspective camera placed on a sphere around a point of the floor.

    Args:
        azimuth (float): Degrees, counter-clockwise from the +x axis.
        elevation (float): Degrees above the floor.
        distance (float): Distance to ``target``.
        target (tuple): ``(x, y)`` point of the floor the camera looks at.
        hfov (float): Horizontal field of view in degrees.
    """
    azimuth: float
    elevation: float
    distance: float
    target: tuple
    hfov: float = CLEVR_HFOV_DEG

    @property
    def position(self) -> np.ndarray:
        az, el = math.radians(self.azimuth), math.radians(self.elevation)
        offset = self.distance * np.array(
            [math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
             math.sin(el)])
        return np.array([self.target[0], self.target[1], 0.0]) + offset

    def basis(self):
        """Unit ``forward``, ``right``, ``up`` vectors in world space
        (computed again only when the camera's fields change)."""
        key = (self.azimuth, self.elevation, self.distance, tuple(self.target))
        if getattr(self, '_basis_key', None) != key:
            target = np.array([self.target[0], self.target[1], 0.0])
            forward = target - self.position
            forward /= np.linalg.norm(forward)
            right = np.cross(forward, [0.0, 0.0, 1.0])
            right /= np.linalg.norm(right)
            self._basis = forward, right, np.cross(right, forward)
            self._basis_key = key
        return self._basis

    def ground_directions(self) -> dict:
        """CLEVR's relation directions: unit vectors on the floor.

        ``behind`` is the camera's forward direction projected on the floor,
        ``left`` its negated right vector; ``front``/``right`` are opposites.
        """
        forward, right, _ = self.basis()
        behind = np.array([forward[0], forward[1], 0.0])
        behind /= np.linalg.norm(behind)
        left = -np.array([right[0], right[1], 0.0])
        left /= np.linalg.norm(left)
        return {'behind': behind, 'front': -behind, 'left': left,
                'right': -left}

    def focal_px(self, width: int) -> float:
        return (width / 2) / math.tan(math.radians(self.hfov) / 2)

    def ray_directions(self, width: int, height: int) -> tuple:
        """Unit ray direction through each pixel centre.

        Returns ``(x, y, z)``, three float32 ``[H, W]`` arrays.
        """
        forward, right, up = self.basis()
        focal = self.focal_px(width)
        u = ((np.arange(width) + 0.5 - width / 2) / focal).astype(
            np.float32)[None, :]  # [1, W]
        v = ((np.arange(height) + 0.5 - height / 2) / focal).astype(
            np.float32)[:, None]  # [H, 1]
        # |forward + u right - v up| = sqrt(1 + u^2 + v^2): orthonormal basis
        inv_norm = 1.0 / np.sqrt(1.0 + u * u + v * v)  # [H, W]
        return tuple((float(f) + u * float(r) - v * float(w)) * inv_norm
                     for f, r, w in zip(forward, right, up))

    def project(self, points: np.ndarray, width: int, height: int):
        """Pixel coordinates ``[N, 2]`` (x right, y down) and depth ``[N]``."""
        forward, right, up = self.basis()
        rel = np.asarray(points, dtype=np.float64) - self.position  # [N, 3]
        depth = rel @ forward
        focal = self.focal_px(width)
        x = width / 2 + focal * (rel @ right) / depth
        y = height / 2 - focal * (rel @ up) / depth
        return np.stack([x, y], axis=-1), depth

    def to_dict(self) -> dict:
        return {'azimuth': self.azimuth, 'elevation': self.elevation,
                'distance': self.distance, 'target': list(self.target),
                'hfov': self.hfov,
                'position': [float(c) for c in self.position]}

    @classmethod
    def from_dict(cls, d: dict) -> 'Camera':
        return cls(d['azimuth'], d['elevation'], d['distance'],
                   tuple(d['target']), d['hfov'])
