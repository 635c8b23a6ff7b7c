"""mmidc.datasets.image_io: any image mode decodes to RGB uint8, sizes are
normalised to (H, W), and resizing is PIL's bicubic (a no-op at the size)."""
import numpy as np
import pytest
from PIL import Image

from mmidc.datasets.image_io import read_rgb, resize_rgb, to_hw


def test_read_rgb_modes_and_errors(tmp_path):
    grey16 = np.array([[0, 65535], [257 * 10, 257 * 200]], np.uint16)
    path = str(tmp_path / 'grey16.png')
    Image.fromarray(grey16).save(path)
    rgb = read_rgb(path)
    assert rgb.dtype == np.uint8 and rgb.shape == (2, 2, 3)
    np.testing.assert_array_equal(rgb[..., 0], [[0, 255], [10, 200]])  # rescaled
    rgba = np.zeros((2, 3, 4), np.uint8)
    rgba[..., 1], rgba[..., 3] = 90, 0
    Image.fromarray(rgba).save(str(tmp_path / 'rgba.png'))
    np.testing.assert_array_equal(read_rgb(str(tmp_path / 'rgba.png'))[..., 1], 90)
    with pytest.raises(FileNotFoundError, match='missing.png'):
        read_rgb(str(tmp_path / 'missing.png'))
    (tmp_path / 'bad.png').write_bytes(b'not an image')
    with pytest.raises(OSError, match='cannot decode image .*bad.png'):
        read_rgb(str(tmp_path / 'bad.png'))


def test_to_hw():
    assert to_hw(224, 'size') == (224, 224)
    assert to_hw([32, 48], 'size') == (32, 48)
    for bad in (0, (3, ), (2, 2, 2), (2.5, 3)):
        with pytest.raises(ValueError, match='Resize.size must be'):
            to_hw(bad, 'Resize.size')


def test_resize_rgb():
    img = np.random.default_rng(0).integers(0, 256, (8, 12, 3), np.uint8)
    assert resize_rgb(img, (8, 12)) is img
    out = resize_rgb(img, (4, 6))
    expected = np.asarray(Image.fromarray(img).resize((6, 4), Image.BICUBIC))
    np.testing.assert_array_equal(out, expected)
