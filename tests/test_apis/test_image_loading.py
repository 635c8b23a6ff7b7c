import numpy as np
import pytest
from PIL import Image

from mmidc.apis import image_loading
from mmidc.apis.image_loading import (ImageInputError, check_pair_sizes,
                                      load_rgb_image)
from mmidc.datasets.image_io import read_rgb
from tests.helpers.exif_images import corners, oriented_bytes, upright_picture
from tests.helpers.wide_images import write_wide


def _save(path, size=(40, 30), fmt=None, mode='RGB'):
    Image.new(mode, size, (200, 10, 10)).save(path, format=fmt)
    return path


def test_loads_path_pil_and_arrays(tmp_path):
    path = _save(tmp_path / 'a.png', mode='RGBA')
    from_path = load_rgb_image(path)
    assert from_path.shape == (30, 40, 3) and from_path.dtype == np.uint8
    assert tuple(from_path[0, 0]) == (200, 10, 10)
    from_pil = load_rgb_image(Image.open(path))
    np.testing.assert_array_equal(from_path, from_pil)
    gray = load_rgb_image(np.zeros((5, 6), np.uint8))
    assert gray.shape == (5, 6, 3)
    floats = load_rgb_image(np.ones((5, 6, 3), np.float32))
    assert floats.dtype == np.uint8 and floats.max() == 255


def test_missing_and_unreadable_files_name_the_file(tmp_path):
    with pytest.raises(ImageInputError, match='nope.png: no such image'):
        load_rgb_image(tmp_path / 'nope.png')
    bad = tmp_path / 'bad.png'
    bad.write_bytes(b'not an image at all')
    with pytest.raises(ImageInputError, match='bad.png: not a readable'):
        load_rgb_image(bad)
    truncated = tmp_path / 'cut.jpg'
    noise = np.random.default_rng(0).integers(0, 255, (200, 300, 3))
    Image.fromarray(noise.astype(np.uint8)).save(tmp_path / 'full.jpg')
    data = (tmp_path / 'full.jpg').read_bytes()
    truncated.write_bytes(data[:len(data) // 2])
    with pytest.raises(ImageInputError, match='cut.jpg: cannot decode'):
        load_rgb_image(truncated)


def test_bad_arrays():
    with pytest.raises(ImageInputError, match='expected an array'):
        load_rgb_image(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ImageInputError, match='dtype complex64 cannot be'):
        load_rgb_image(np.zeros((4, 4, 3), np.complex64))
    with pytest.raises(ImageInputError, match='array .4, 4.: float image '
                       'with 4 NaN'):
        load_rgb_image(np.array([[0, 1, 0.5, np.nan]] * 4, np.float32))
    with pytest.raises(ImageInputError, match='expected a path'):
        load_rgb_image(42)


def test_a_refusal_just_over_the_limit_tells_the_sizes_apart(tmp_path):
    # 800x600 = 480,000 pixels over a limit of 479,999: both are 0.5
    # megapixels at one decimal, which read as "0.5 is above the limit of 0.5"
    png = _save(tmp_path / 'edge.png', size=(800, 600))
    with pytest.raises(ImageInputError) as error:
        load_rgb_image(png, max_pixels=479_999)
    assert '0.480000 megapixels is above the limit of 0.479999' in str(error.value)
    with pytest.raises(ImageInputError) as error:
        load_rgb_image(png, max_pixels=100_000)
    assert '0.5 megapixels is above the limit of 0.1' in str(error.value)


def test_large_jpeg_is_downscaled_large_png_refused(tmp_path):
    jpg = _save(tmp_path / 'big.jpg', size=(800, 600))
    small = load_rgb_image(jpg, max_pixels=20_000)
    assert small.shape[0] * small.shape[1] <= 20_000
    assert small.shape[1] / small.shape[0] == pytest.approx(800 / 600, 0.05)
    png = _save(tmp_path / 'big.png', size=(800, 600))
    with pytest.raises(ImageInputError, match='big.png: refused.*megapixels'):
        load_rgb_image(png, max_pixels=20_000)
    assert load_rgb_image(png, max_pixels=None).shape == (600, 800, 3)
    pil = load_rgb_image(Image.open(png), max_pixels=20_000)
    assert pil.shape[0] * pil.shape[1] <= 20_000


def test_decompression_bomb_is_refused_clearly(tmp_path, monkeypatch):
    png = _save(tmp_path / 'bomb.png', size=(400, 300))
    monkeypatch.setattr(Image, 'MAX_IMAGE_PIXELS', 1000)
    with pytest.raises(ImageInputError, match='bomb.png: refused, the image '
                       'is too large'):
        load_rgb_image(png, max_pixels=None)


def test_pair_sizes_warn_and_never_refuse(monkeypatch):
    """Images of a pair in any two sizes are captioned, each resized on
    its own as in training; far-apart aspect ratios are a warning."""
    logged = []
    monkeypatch.setattr(image_loading, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    check_pair_sizes((480, 320), (240, 160), ['a', 'b'])
    assert logged == []
    check_pair_sizes((480, 320), (320, 480), ['a', 'b'])
    assert len(logged) == 1
    assert 'a is 480x320, b is 320x480; each is resized' in logged[0]
    check_pair_sizes((480, 320), (320, 480), ['a', 'b'], aspect_tolerance=None)
    assert len(logged) == 1


def test_the_training_transform_counts_pairs_of_other_shapes(
        tmp_path, monkeypatch):
    from mmidc.datasets.transforms import load_image_pair
    from mmidc.registry import TRANSFORMS
    logged = []
    monkeypatch.setattr(load_image_pair, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    wide = _save(tmp_path / 'wide.png', size=(48, 16))
    square = _save(tmp_path / 'square.png', size=(16, 16))
    load = TRANSFORMS.build(dict(type='LoadImagePair'))
    pair = dict(img1_path=str(wide), img2_path=str(square))
    for _ in range(10):
        out = load(dict(pair))
    assert out['ori_shape'] == ((16, 48), (16, 16))  # both used
    assert load.mismatched_pairs == 10
    assert len(logged) == 2  # at the 1st and the 10th
    assert logged[1].startswith('LoadImagePair: 10 pair(s) so far')
    assert '48x16 and 16x16 (width x height)' in logged[1]


@pytest.mark.parametrize('kind,value_range', [
    ('grey16', 'full'), ('grey12', (0, 4095)), ('float', 'full'),
    ('rgb12', (0, 4095)), ('rgb_float', 'full')])
def test_training_and_inference_decode_equal_arrays(tmp_path, kind,
                                                    value_range):
    """A 16-bit, 12-bit-in-16 or float image gives LoadImagePair (training)
    and load_rgb_image (IDCInferencer, caption_pair, the demo) the same
    array, from a path and from an upload's bytes: 0-255, neither a
    clipped white nor black."""
    from mmidc.registry import TRANSFORMS
    path, _ = write_wide(tmp_path, kind)
    load = TRANSFORMS.build(dict(type='LoadImagePair',
                                 value_range=value_range))
    trained = load(dict(img1_path=str(path), img2_path=str(path)))['img1']
    assert trained.min() == 0 and trained.max() == 255
    np.testing.assert_array_equal(
        load_rgb_image(path, value_range=value_range), trained)
    np.testing.assert_array_equal(
        load_rgb_image(path.read_bytes(), value_range=value_range), trained)
    if kind.startswith('grey'):  # PIL opens it (the float TIFF: mode F)
        with Image.open(path) as img:
            np.testing.assert_array_equal(
                load_rgb_image(img, value_range=value_range), trained)
        with Image.open(path) as img:  # over the budget: mapped, then shrunk
            small = load_rgb_image(img, max_pixels=12, value_range=value_range)
        assert small.shape == (3, 4, 3) and small.max() > 200


def test_bytes_like_an_upload(tmp_path):
    path = _save(tmp_path / 'a.jpg', size=(800, 600))
    data = path.read_bytes()
    assert load_rgb_image(data).shape == (600, 800, 3)
    assert load_rgb_image(data, max_pixels=20_000).size <= 3 * 20_000
    with pytest.raises(ImageInputError, match='upload: not a readable'):
        load_rgb_image(b'GIF89a nonsense', name='upload')


def test_malformed_pngs_are_decode_errors_naming_the_file(tmp_path):
    from mmidc.apis import ImageDecodeError, ImageTooLargeError
    from tests.helpers.hostile_images import malformed_pngs, pixel_bomb_png
    for name, data in malformed_pngs().items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ImageDecodeError, match=f'{name}: (not a readable|cannot decode)'):
            load_rgb_image(tmp_path / name)
    with pytest.raises(ImageTooLargeError, match='bomb: refused.*megapixels'):
        load_rgb_image(pixel_bomb_png(50_000, 50_000), name='bomb')


def test_sideways_photos_are_read_upright(tmp_path):
    """A phone photo stored sideways (EXIF orientation 6) is upright from a
    path, an upload's bytes, a PIL image and when downscaled, as in
    training (mmidc.datasets.image_io.read_rgb)."""
    upright = upright_picture(48, 80)
    png = tmp_path / 'phone.png'
    png.write_bytes(oriented_bytes(upright, 6))
    np.testing.assert_array_equal(load_rgb_image(png), upright)
    np.testing.assert_array_equal(load_rgb_image(png), read_rgb(str(png)))
    with Image.open(png) as img:
        np.testing.assert_array_equal(load_rgb_image(img), upright)
    jpeg = oriented_bytes(upright, 6, 'JPEG')
    from_upload = load_rgb_image(jpeg, name='upload')
    assert from_upload.shape == upright.shape
    assert corners(from_upload) == corners(upright)
    (tmp_path / 'phone.jpg').write_bytes(jpeg)
    small = load_rgb_image(tmp_path / 'phone.jpg', max_pixels=1000)
    assert small.shape[0] < small.shape[1]  # landscape, as upright
    assert corners(small) == corners(upright)
