"""Scene settings and the views they draw."""
import numpy as np
import pytest

from mmidc.synthetic import SceneSettings
from mmidc.synthetic.camera import Camera
from mmidc.synthetic.scene import Lights, jitter_view, sample_view


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


def test_settings_refuse_bad_ranges():
    with pytest.raises(ValueError, match='min_objects < max_objects'):
        SceneSettings(min_objects=5, max_objects=5)
    with pytest.raises(ValueError, match='view_jitter'):
        SceneSettings(view_jitter=-1)
