import numpy as np
import pytest
from PIL import Image

from mmidc.registry import TRANSFORMS


def _load(img1_path, img2_path, **kwargs):
    load = TRANSFORMS.build(dict(type='LoadImagePair', **kwargs))
    return load(dict(img1_path=str(img1_path), img2_path=str(img2_path)))


@pytest.mark.parametrize('mode', ['RGBA', 'RGB', 'L', 'LA', 'P', 'CMYK',
                                  'I;16'])
def test_every_mode_becomes_rgb_uint8(tmp_path, mode):
    rgb = np.random.default_rng(0).integers(0, 256, (6, 9, 3), np.uint8)
    img = Image.fromarray(rgb)
    if mode == 'I;16':
        grey = np.asarray(img.convert('L')).astype(np.uint16) * 257
        img = Image.fromarray(grey)  # mode I;16
    else:
        img = img.convert(mode)
    ext = 'jpg' if mode == 'CMYK' else 'png'
    img.save(tmp_path / f'a.{ext}')
    Image.fromarray(rgb).save(tmp_path / 'b.png')
    results = _load(tmp_path / f'a.{ext}', tmp_path / 'b.png')
    assert results['img1'].shape == (6, 9, 3)
    assert results['img1'].dtype == np.uint8
    np.testing.assert_array_equal(results['img2'], rgb)
    assert results['ori_shape'] == ((6, 9), (6, 9))
    if mode in ('RGBA', 'RGB'):  # alpha dropped, colours untouched
        np.testing.assert_array_equal(results['img1'], rgb)
    if mode in ('L', 'I;16'):  # 16-bit grey rescaled, not clipped to 255
        grey = np.asarray(Image.fromarray(rgb).convert('L'))
        np.testing.assert_array_equal(results['img1'][..., 0], grey)


def test_missing_and_corrupt_files_named(tmp_path):
    noise = np.random.default_rng(0).integers(0, 256, (64, 64, 3), np.uint8)
    Image.fromarray(noise).save(tmp_path / 'ok.png')
    with pytest.raises(FileNotFoundError, match='gone.png'):
        _load(tmp_path / 'ok.png', tmp_path / 'gone.png')
    (tmp_path / 'bad.png').write_bytes(b'\x89PNG\r\n\x1a\n not really')
    with pytest.raises(OSError, match='cannot decode image .*bad.png'):
        _load(tmp_path / 'bad.png', tmp_path / 'ok.png')
    good = (tmp_path / 'ok.png').read_bytes()
    (tmp_path / 'cut.png').write_bytes(good[:len(good) // 2])
    with pytest.raises(OSError, match='cut.png'):
        _load(tmp_path / 'ok.png', tmp_path / 'cut.png')


def test_cache_options_checked():
    with pytest.raises(ValueError, match='cache_size'):
        TRANSFORMS.build(dict(type='LoadImagePair', cache_dir='somewhere'))


class _MemoryBackend:
    """A non-local storage backend: files are bytes in a dict, read with
    MMEngine's ``get``; counts its reads."""
    files = {}
    reads = []

    def __init__(self, **kwargs):
        pass

    def get(self, filepath):
        self.reads.append(str(filepath))
        try:
            return self.files[str(filepath)]
        except KeyError:
            raise FileNotFoundError(filepath) from None

    def get_text(self, filepath, encoding='utf-8'):
        return self.get(filepath).decode(encoding)


@pytest.fixture
def memory_backend():
    import io

    from mmengine.fileio import register_backend
    from mmengine.fileio.backends import BaseStorageBackend
    backend = type('MmidcTestMemoryBackend',
                   (_MemoryBackend, BaseStorageBackend), {})
    register_backend('mmidc_test_memory', backend, force=True,
                     prefixes='mmidcmem')
    rng = np.random.default_rng(1)
    pixels = {}
    for name in ('a.png', 'b.png'):
        pixels[name] = rng.integers(0, 256, (5, 7, 3), np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(pixels[name]).save(buffer, format='PNG')
        _MemoryBackend.files[f'mmidcmem://bucket/{name}'] = buffer.getvalue()
        _MemoryBackend.files[f'bucket/{name}'] = buffer.getvalue()
    _MemoryBackend.reads.clear()
    return pixels


def test_reads_through_mmengine_fileio_backend_args(memory_backend):
    """Images on a non-local backend, named by backend_args."""
    results = _load('bucket/a.png', 'bucket/b.png',
                    backend_args=dict(backend='mmidc_test_memory'))
    np.testing.assert_array_equal(results['img1'], memory_backend['a.png'])
    np.testing.assert_array_equal(results['img2'], memory_backend['b.png'])
    assert _MemoryBackend.reads == ['bucket/a.png', 'bucket/b.png']


def test_reads_through_mmengine_fileio_prefix(memory_backend):
    """A URI's prefix picks the backend without backend_args."""
    results = _load('mmidcmem://bucket/a.png', 'mmidcmem://bucket/b.png')
    np.testing.assert_array_equal(results['img1'], memory_backend['a.png'])
    with pytest.raises(FileNotFoundError,
                       match='image not found: mmidcmem://bucket/nope.png'):
        _load('mmidcmem://bucket/a.png', 'mmidcmem://bucket/nope.png')
