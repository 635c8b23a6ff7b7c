"""The ray-casting renderer: an RGBA image whose objects cover the pixels it
counts, in their colour, on the grey floor."""
import numpy as np

from mmidc.synthetic.camera import Camera
from mmidc.synthetic.renderer import render, visible_pixel_counts
from mmidc.synthetic.scene import Lights, SceneObject

CAMERA = Camera(azimuth=-60.0, elevation=35.0, distance=10.5, target=(0.0, 0.0))
LIGHTS = Lights(key_azimuth=45.0, key_elevation=50.0, key_intensity=0.8,
                fill_azimuth=200.0, fill_intensity=0.3, ambient=0.3)


def test_an_object_covers_its_counted_pixels_in_its_colour():
    sphere = SceneObject(3, 'sphere', 'red', 'rubber', 'large', 0.0, 0.0)
    far = SceneObject(4, 'cube', 'blue', 'metal', 'small', 100.0, 100.0)
    result = render([sphere, far], CAMERA, LIGHTS, 64, 48)
    image = result.image
    assert image.shape == (48, 64, 4) and image.dtype == np.uint8
    assert (image[..., 3] == 255).all()
    assert result.visible_pixels == visible_pixel_counts([sphere, far], CAMERA, 64, 48)
    assert result.visible_pixels[4] == 0 and result.visible_pixels[3] > 50
    floor = render([], CAMERA, LIGHTS, 64, 48).image
    assert (floor[..., 0] == floor[..., 1]).all()  # a grey floor
    red = image[..., 0].astype(int) - image[..., 1] > 40
    assert red.sum() >= 0.8 * result.visible_pixels[3]
    assert (image != floor).any(-1).sum() >= result.visible_pixels[3]  # + its shadow
