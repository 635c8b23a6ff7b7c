"""mmidc.datasets.image_io: any image mode decodes to RGB uint8, sizes are
normalised to (H, W), and resizing is PIL's bicubic (a no-op at the size)."""
import numpy as np
import pytest
from PIL import Image, ImageOps

from mmidc.datasets.image_io import (apply_orientation, read_rgb, resize_rgb,
                                     to_hw)
from tests.helpers.exif_images import corners, oriented_bytes, upright_picture


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


@pytest.mark.parametrize('orientation', range(1, 9))
def test_read_rgb_applies_the_exif_orientation(tmp_path, orientation):
    upright = upright_picture()
    path = tmp_path / f'photo_{orientation}.png'
    path.write_bytes(oriented_bytes(upright, orientation))
    with Image.open(path) as img:  # stored sideways for 5-8
        assert img.size == ((40, 24) if orientation < 5 else (24, 40))
        np.testing.assert_array_equal(
            np.asarray(ImageOps.exif_transpose(img).convert('RGB')), upright)
    np.testing.assert_array_equal(read_rgb(str(path)), upright)


def test_a_sideways_phone_jpeg_is_read_upright(tmp_path):
    upright = upright_picture()
    path = tmp_path / 'phone.jpg'
    path.write_bytes(oriented_bytes(upright, 6, 'JPEG'))
    rgb = read_rgb(str(path))
    assert rgb.shape == upright.shape
    assert corners(rgb) == corners(upright)
    # 16-bit grey is turned too
    grey = (np.arange(6 * 10, dtype=np.uint16).reshape(6, 10) * 1000)
    stored = Image.fromarray(grey).transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6
    stored.save(str(tmp_path / 'grey16.png'), exif=exif)
    out = read_rgb(str(tmp_path / 'grey16.png'))
    np.testing.assert_array_equal(
        out[..., 0], np.clip(np.rint(grey / 257.0), 0, 255).astype(np.uint8))


def test_apply_orientation_is_exif_transpose():
    picture = np.random.default_rng(3).integers(0, 256, (5, 7, 3), np.uint8)
    for orientation in range(0, 10):
        img = Image.fromarray(picture)
        exif = img.getexif()
        exif[0x0112] = orientation
        img.info['exif'] = exif.tobytes()
        expected = np.asarray(ImageOps.exif_transpose(img)) \
            if 1 <= orientation <= 8 else picture
        np.testing.assert_array_equal(
            apply_orientation(picture, orientation), expected)
