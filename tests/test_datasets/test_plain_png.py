"""Plain 8-bit PNGs are decoded by libpng (OpenCV) to exactly the pixels
PIL gives; every other image, and a plain PNG libpng refuses, takes PIL's
path as before (same pixels, same errors)."""
import io
import struct

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from mmidc.apis.image_loading import ImageInputError, load_rgb_image
from mmidc.datasets import image_io
from mmidc.datasets.image_io import decode_rgb, is_plain_png
from tests.helpers.exif_images import oriented_bytes, upright_picture
from tests.helpers.hostile_images import (malformed_pngs, png_bytes, png_chunk,
                                          zeroed_scan_jpeg)
from tests.helpers.wide_images import write_wide

RNG = np.random.default_rng(0)
PICTURE = RNG.integers(0, 256, (12, 10, 3), np.uint8)


def _encode(image: Image.Image, fmt: str = 'PNG', **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _with_chunk(png: bytes, kind: bytes, data: bytes) -> bytes:
    """``png`` with one more chunk after IHDR."""
    return png[:33] + png_chunk(kind, data) + png[33:]


def _with_text(key: str, value: str) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text(key, value)
    return _encode(Image.fromarray(PICTURE), pnginfo=info)


def _raw_exif_text() -> str:
    exif = Image.Exif()
    exif[0x0112] = 6
    hexdata = exif.tobytes().hex()
    return f'\nexif\n{len(hexdata) // 2:8d}\n{hexdata}'


def _blender_like() -> bytes:
    """As Blender writes CLEVR's PNGs: RGBA, pHYs, tEXt metadata, the pixel
    data in several IDAT chunks."""
    info = PngImagePlugin.PngInfo()
    for key, value in (('File', 'data/base_scene.blend'), ('Frame', '001'),
                       ('Camera', 'Camera'), ('RenderTime', '00:08.00')):
        info.add_text(key, value)
    rgba = RNG.integers(0, 256, (40, 48, 4), np.uint8)
    png = _encode(Image.fromarray(rgba), pnginfo=info, dpi=(72, 72))
    start = png.index(b'IDAT') - 4
    length = struct.unpack('>I', png[start:start + 4])[0]
    pixels = png[start + 8:start + 8 + length]
    chunks = b''.join(png_chunk(b'IDAT', pixels[i:i + 1000])
                      for i in range(0, length, 1000))
    return png[:start] + chunks + png[start + 12 + length:]


PLAIN = {
    'rgb': png_bytes(PICTURE),
    'grey': png_bytes(PICTURE[..., 0]),
    'rgba': png_bytes(RNG.integers(0, 256, (9, 7, 4), np.uint8)),
    'grey_alpha': _encode(Image.fromarray(
        RNG.integers(0, 256, (9, 7, 2), np.uint8), 'LA')),
    'blender_like': _blender_like(),
    'gamma': _with_chunk(png_bytes(PICTURE), b'gAMA',
                         struct.pack('>I', 20000)),
    'srgb_chrm': _with_chunk(_with_chunk(png_bytes(PICTURE), b'sRGB', b'\0'),
                             b'cHRM', struct.pack('>8I', *range(8))),
    'sbit_bkgd': _with_chunk(_with_chunk(png_bytes(PICTURE), b'sBIT',
                                         b'\4\4\4'),
                             b'bKGD', struct.pack('>3H', 1, 2, 3)),
    'rgb_trns': _with_chunk(png_bytes(PICTURE), b'tRNS',
                            struct.pack('>3H', *PICTURE[0, 0].tolist())),
    'rgb_trailing_bytes': png_bytes(PICTURE) + b'\0' * 7,
}


def _not_plain(tmp_path) -> dict:
    out = {
        'palette': _encode(Image.fromarray(PICTURE).quantize(16)),
        'palette_trns': _encode(Image.fromarray(PICTURE).quantize(16),
                                transparency=3),
        'exif_orientation': oriented_bytes(upright_picture(), 6),
        'raw_exif_text': _with_text('Raw profile type exif', _raw_exif_text()),
        'xmp_text': _with_text('XML:com.adobe.xmp',
                               '<x:xmpmeta tiff:Orientation="8"/>'),
        'ztxt': _encode(Image.fromarray(PICTURE), pnginfo=_ztxt_info()),
        'icc': _encode(Image.fromarray(PICTURE), icc_profile=b'\0' * 200),
        'one_bit': _encode(Image.fromarray(PICTURE[..., 0] > 128)),
        'jpeg': _encode(Image.fromarray(PICTURE), 'JPEG'),
        'phone_jpeg': oriented_bytes(upright_picture(), 6, 'JPEG'),
        'tiff': _encode(Image.fromarray(PICTURE), 'TIFF'),
    }
    for kind in ('grey16', 'grey12', 'rgb12', 'float'):
        path, _ = write_wide(tmp_path, kind)
        out[kind] = path.read_bytes()
    return out


def _ztxt_info():
    info = PngImagePlugin.PngInfo()
    info.add_text('Comment', 'compressed', zip=True)
    return info


def _pil_path(monkeypatch):
    """What the decoders give with every image on PIL's path (as before)."""
    monkeypatch.setattr(image_io, 'decode_plain_png', lambda data: None)


def test_plain_pngs_give_pils_pixels_through_libpng(monkeypatch):
    calls = []
    decode = image_io.decode_plain_png

    def spy(data):
        calls.append(decode(data))
        return calls[-1]

    monkeypatch.setattr(image_io, 'decode_plain_png', spy)
    fast = {}
    for name, data in PLAIN.items():
        assert is_plain_png(data), name
        fast[name] = (decode_rgb(data, name),
                      load_rgb_image(data, name=name))
        assert calls[-1] is not None, f'{name}: not decoded by libpng'
    _pil_path(monkeypatch)
    for name, data in PLAIN.items():
        expected = decode_rgb(data, name)
        assert expected.dtype == np.uint8 and expected.shape[2] == 3
        for got in fast[name]:
            np.testing.assert_array_equal(got, expected, err_msg=name)
            assert got.dtype == np.uint8 and got.flags.c_contiguous


def test_other_images_keep_pils_path(tmp_path, monkeypatch):
    others = _not_plain(tmp_path)
    value_range = dict(grey12=(0, 4095), rgb12=(0, 4095))
    got = {}
    for name, data in others.items():
        assert not is_plain_png(data), name
        got[name] = decode_rgb(data, name, value_range.get(name, 'full'))
    assert got['exif_orientation'].shape[:2] == (24, 40)  # turned upright
    assert got['raw_exif_text'].shape[:2] == (10, 12)  # PIL reads it turned
    assert got['xmp_text'].shape[:2] == (10, 12)
    _pil_path(monkeypatch)
    for name, data in others.items():
        np.testing.assert_array_equal(
            got[name], decode_rgb(data, name, value_range.get(name, 'full')),
            err_msg=name)


def test_interlaced_and_odd_headers_are_not_plain():
    png = png_bytes(PICTURE)

    def with_ihdr(offset, value):
        header = bytearray(png[16:29])
        header[offset] = value
        return png[:8] + png_chunk(b'IHDR', bytes(header)) + png[33:]

    assert is_plain_png(png)
    assert not is_plain_png(with_ihdr(12, 1))  # Adam7 interlace
    assert not is_plain_png(with_ihdr(8, 16))  # 16 bits a sample
    assert not is_plain_png(with_ihdr(9, 3))  # palette
    assert not is_plain_png(png[:-12])  # no IEND
    assert not is_plain_png(png[:40])
    assert not is_plain_png(b'')


def test_broken_pngs_fail_as_before(monkeypatch):
    """Malformed files: the same error as on PIL's path, whichever way the
    walk over the chunks goes (libpng refusing a plain-looking file hands
    it to PIL)."""
    files = dict(malformed_pngs(), zeroed_scan=zeroed_scan_jpeg())
    png = png_bytes(PICTURE)
    idat = png.index(b'IDAT')
    files['bad_idat_crc'] = png[:idat + 8] + bytes([png[idat + 8] ^ 1]) + \
        png[idat + 9:]
    files['short_idat'] = png[:33] + png_chunk(b'IDAT', b'x\x9c\x01') + \
        png_chunk(b'IEND', b'')

    def outcome(data):
        try:
            return load_rgb_image(data, name='x.png')
        except ImageInputError as err:
            return f'{type(err).__name__}: {err}'

    fast = {name: outcome(data) for name, data in files.items()}
    assert is_plain_png(files['bad_idat_crc'])
    assert is_plain_png(files['short_idat'])
    _pil_path(monkeypatch)
    for name, data in files.items():
        expected = outcome(data)
        if isinstance(expected, str):
            assert fast[name] == expected, name
        else:
            np.testing.assert_array_equal(fast[name], expected, err_msg=name)
    assert all(isinstance(v, str) for k, v in fast.items()
               if k != 'bad_idat_crc'), fast


@pytest.mark.parametrize('orientation', [1, 3, 6])
def test_exif_oriented_png_stays_on_pils_path(orientation):
    upright = upright_picture()
    data = oriented_bytes(upright, orientation)
    assert is_plain_png(data) is False
    np.testing.assert_array_equal(decode_rgb(data, 'photo.png'), upright)
