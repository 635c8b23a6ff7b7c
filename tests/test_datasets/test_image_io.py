"""mmidc.datasets.image_io: any image mode decodes to RGB uint8, sizes are
normalised to (H, W), and resizing is PIL's bicubic (a no-op at the size)."""
import numpy as np
import pytest
from PIL import Image, ImageOps

from mmidc.datasets.image_io import (UnsupportedImageError, apply_orientation,
                                     array_to_rgb,
                                     parse_value_range, read_rgb, resize_rgb,
                                     to_hw, to_uint8, value_range_key)
from tests.helpers.exif_images import corners, oriented_bytes, upright_picture
from tests.helpers.wide_images import expected_rgb, write_wide


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


@pytest.mark.parametrize('kind,value_range,low,high', [
    ('grey16', 'full', 0, 65535),
    ('grey12', (0, 4095), 0, 4095),
    ('float', 'full', 0, 1),
    ('rgb12', (0, 4095), 0, 4095),
    ('rgb_float', 'full', 0, 1),
])
def test_wide_images_map_by_value_range(tmp_path, kind, value_range, low,
                                        high):
    """16-bit, 12-bit-in-16 and float images span 0-255, not a clipped
    white, a black or a 0-16 image."""
    path, samples = write_wide(tmp_path, kind)
    rgb = read_rgb(str(path), value_range=value_range)
    np.testing.assert_array_equal(rgb, expected_rgb(samples, low, high))
    assert rgb.min() == 0 and rgb.max() == 255


def test_value_range_policies(tmp_path):
    path, samples = write_wide(tmp_path, 'grey12')
    # 'full': a 12-bit image in 16 bits is dark (0-16), as stored
    assert read_rgb(str(path)).max() == 16
    # 'image': its own min-max; 'percentile': 2-98 % per band, clipped
    np.testing.assert_array_equal(read_rgb(str(path), value_range='image'),
                                  expected_rgb(samples, 0, 4095))
    low, high = np.percentile(samples, (2, 98))
    np.testing.assert_array_equal(
        read_rgb(str(path), value_range='percentile'),
        expected_rgb(samples, low, high))
    bands = np.stack([samples, samples // 4, samples // 16], 2)
    stretched = to_uint8(bands, 'percentile')
    assert [stretched[..., c].max() for c in range(3)] == [255] * 3
    # 8-bit images are read as stored whatever the policy
    np.testing.assert_array_equal(to_uint8(np.uint8([[3, 9]]), 'image'),
                                  [[3, 9]])
    with pytest.raises(ValueError, match="value_range must be one of"):
        read_rgb(str(path), value_range=(10, 5))
    with pytest.raises(ValueError, match="value range must be .* got '0-4095'"):
        parse_value_range('0-4095')
    with pytest.raises(ValueError, match="value range '0,x': expected LOW,"):
        parse_value_range('0,x')
    assert parse_value_range('0,4095') == (0.0, 4095.0)
    assert value_range_key((0, 4095)) == '0:4095'


def test_unsupported_images_name_the_file(tmp_path):
    nan = np.full((4, 5), 0.5, np.float32)
    nan[1, 2] = np.nan
    Image.fromarray(nan).save(tmp_path / 'nan.tif')
    with pytest.raises(UnsupportedImageError,
                       match=r'nan.tif: float image with 1 NaN'):
        read_rgb(str(tmp_path / 'nan.tif'))
    with pytest.raises(UnsupportedImageError,
                       match=r'bands.tif: an image of shape \(4, 5, 6\).*'
                       r'1, 2 \(grey, alpha\), 3 \(RGB\) or 4'):
        array_to_rgb(np.zeros((4, 5, 6), np.uint16), name='bands.tif')
    (tmp_path / 'odd.tif').write_bytes(b'II*\x00' + bytes(60))
    with pytest.raises(OSError, match=r'odd.tif: not an image file this '
                       r'reader can decode \(supported: 8-bit modes'):
        read_rgb(str(tmp_path / 'odd.tif'))
