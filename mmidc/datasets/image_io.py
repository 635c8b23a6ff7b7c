"""Image decoding and resizing shared by the transforms and the cache.

Images are read upright: a photo stored sideways with an EXIF orientation
(a phone photo, orientation 6 say) is turned as its orientation says
(:func:`exif_orientation`, :func:`apply_orientation`), in training, the
image cache and inference alike.
"""
import io
import logging
import math
import struct
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from mmengine import fileio
from mmengine.logging import print_log
from PIL import Image, UnidentifiedImageError

try:  # OpenCV: a dependency of MMEngine and MMCV
    import cv2
except ImportError:  # pragma: no cover
    cv2 = None

#: The EXIF tag of the orientation.
EXIF_ORIENTATION = 0x0112


def exif_orientation(img: Image.Image, name: Optional[str] = None) -> int:
    """The EXIF orientation of an opened image (1 to 8; 1: upright).

    1 when the image has no EXIF data, no orientation tag or a value outside
    1-8. EXIF data that cannot be parsed is logged (a warning naming the
    image) and read as 1: the image is used as stored.

    Args:
        img (PIL.Image.Image): The image, loaded (PNG keeps its EXIF chunk
            after the pixels).
        name (str, optional): How to call the image in the warning.
    """
    try:
        value = img.getexif().get(EXIF_ORIENTATION, 1)
    except Exception as e:  # PIL raises many types for bad EXIF blocks
        print_log(f'{name or "image"}: unreadable EXIF data ({type(e).__name__}'
                  f': {e}); its orientation is taken as stored',
                  logger='current', level=logging.WARNING)
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


#: The turn of each EXIF orientation other than 1 (:func:`apply_orientation`).
_ORIENTATIONS = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1],
                 4: lambda a: a[::-1], 5: lambda a: a.swapaxes(0, 1),
                 6: lambda a: np.rot90(a, k=-1),
                 7: lambda a: a.swapaxes(0, 1)[::-1, ::-1],
                 8: lambda a: np.rot90(a, k=1)}


def apply_orientation(array: np.ndarray, orientation: int) -> np.ndarray:
    """Turn an ``[H, W, ...]`` array stored with an EXIF ``orientation`` upright.

    The same pixels as ``PIL.ImageOps.exif_transpose``: 2 mirrors, 3 turns
    by 180 degrees, 4 flips, 5 transposes, 6 turns clockwise by 90 degrees
    (a phone held upright), 7 transverses, 8 turns counter-clockwise by 90
    degrees; 1 (or any other value) leaves the array as it is.
    """
    turn = _ORIENTATIONS.get(orientation)
    return array if turn is None else np.ascontiguousarray(turn(array))


#: What ``value_range`` may be besides a ``(low, high)`` pair of numbers.
VALUE_RANGE_NAMES = ('full', 'image', 'percentile')
#: The percentiles of the ``'percentile'`` stretch (per band).
STRETCH_PERCENTILES = (2.0, 98.0)

#: PIL modes of 8 bits per sample: read as stored (``convert('RGB')``).
EIGHT_BIT_MODES = ('1', 'L', 'LA', 'La', 'P', 'PA', 'RGB', 'RGBA', 'RGBa',
                   'RGBX', 'CMYK', 'YCbCr', 'LAB', 'HSV')
#: PIL modes of wide integer or float samples: mapped to 8 bits by the
#: ``value_range`` policy (:func:`to_uint8`).
WIDE_MODES = ('I', 'I;16', 'I;16B', 'I;16L', 'I;16N', 'F')
_SUPPORTED = (f'8-bit modes {", ".join(EIGHT_BIT_MODES)}; 16-bit and 32-bit '
              f'integer or float grey (PIL modes {", ".join(WIDE_MODES)}); '
              f'16-bit RGB/RGBA PNG or TIFF and float TIFF of 1-4 bands')

ValueRange = Union[str, Tuple[float, float]]


class UnsupportedImageError(ValueError):
    """An image decodes, but its mode, dtype, bands or values cannot be
    mapped to RGB uint8 (the message names the image)."""


def check_value_range(value_range, name: str = 'value_range') -> ValueRange:
    """Check a ``value_range`` option; return it in its canonical form.

    Args:
        value_range (str | Sequence[float]): ``'full'``, ``'image'``,
            ``'percentile'`` or ``(low, high)`` with ``low < high``.
        name (str): How to call the option in the error.

    Returns:
        str | tuple[float, float]: The name, or ``(low, high)`` as floats.

    Raises:
        ValueError: Anything else; the message names ``name``.
    """
    if isinstance(value_range, str):
        if value_range in VALUE_RANGE_NAMES:
            return value_range
    elif isinstance(value_range, Sequence) and len(value_range) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) for v in value_range) and \
            value_range[0] < value_range[1]:
        return float(value_range[0]), float(value_range[1])
    raise ValueError(f'{name} must be one of {VALUE_RANGE_NAMES} or (low, '
                     f'high) numbers with low < high, got {value_range!r}')


def parse_value_range(text: str) -> ValueRange:
    """A ``value_range`` from a command-line word: ``'full'``, ``'image'``,
    ``'percentile'`` or ``'LOW,HIGH'`` (``'0,4095'``).

    Raises:
        ValueError: Anything else (an ``argparse`` type reports it).
    """
    if ',' in text:
        try:
            low, high = (float(v) for v in text.split(','))
        except ValueError:
            raise ValueError(f'value range {text!r}: expected LOW,HIGH '
                             f'numbers, e.g. 0,4095') from None
        return check_value_range((low, high), 'value range')
    return check_value_range(text, 'value range')


def value_range_key(value_range) -> str:
    """A short text naming a ``value_range`` (the image cache records it):
    ``'full'``, ``'image'``, ``'percentile'`` or ``'0:4095'``."""
    value_range = check_value_range(value_range)
    if isinstance(value_range, str):
        return value_range
    return f'{value_range[0]:g}:{value_range[1]:g}'


def to_uint8(samples: np.ndarray, value_range: ValueRange = 'full',
             name: str = 'image') -> np.ndarray:
    """Map an image's samples to uint8 by the ``value_range`` policy.

    uint8 (and bool) samples are returned as stored: the policy only applies
    to samples wider than 8 bits.

    * ``'full'`` (default): integers by the 16-bit range, 0 -> 0 and
      65535 -> 255 (``round(v / 257)``; 32-bit integers, PIL's mode
      ``'I'``, too, values above 65535 clipped); floats by 0-1, values
      outside clipped.
    * ``(low, high)``: ``low`` -> 0 and ``high`` -> 255 linearly, values
      outside clipped: ``(0, 4095)`` for 12-bit samples stored in 16 bits,
      ``(0, 10000)`` for reflectance scaled by 10000.
    * ``'image'``: each image's own minimum -> 0 and maximum -> 255 (one
      range for all bands; a constant image reads as 0).
    * ``'percentile'``: each band's 2nd -> 0 and 98th percentile -> 255,
      values outside clipped: the stretch remote-sensing viewers apply.

    Args:
        samples (np.ndarray): ``[H, W]`` or ``[H, W, C]`` of any integer or
            float dtype.
        value_range (str | tuple): The policy (:func:`check_value_range`).
        name (str): How to call the image in errors.

    Raises:
        UnsupportedImageError: Float samples with NaN, or a dtype that is
            neither integer nor float; the message names the image.
    """
    if samples.dtype == np.uint8:
        return samples
    if samples.dtype == np.bool_:
        return samples.astype(np.uint8) * 255
    value_range = check_value_range(value_range)
    is_float = np.issubdtype(samples.dtype, np.floating)
    if not is_float and not np.issubdtype(samples.dtype, np.integer):
        raise UnsupportedImageError(
            f'{name}: samples of dtype {samples.dtype} cannot be read as an '
            f'image (supported: {_SUPPORTED})')
    values = samples.astype(np.float64)
    if is_float and np.isnan(values).any():
        raise UnsupportedImageError(
            f'{name}: float image with {int(np.isnan(values).sum())} NaN '
            f'values; fill them (e.g. with 0) before use')
    if value_range == 'full':
        low, high = (0.0, 1.0) if is_float else (0.0, 65535.0)
    elif value_range == 'image':
        finite = values[np.isfinite(values)]
        low, high = (float(finite.min()), float(finite.max())) \
            if finite.size else (0.0, 0.0)
    elif value_range == 'percentile':
        bands = values if values.ndim == 3 else values[:, :, None]
        out = np.stack([_stretch(bands[:, :, c], *np.percentile(
            bands[:, :, c], STRETCH_PERCENTILES)) for c in range(
                bands.shape[2])], axis=2)
        return out if values.ndim == 3 else out[:, :, 0]
    else:
        low, high = value_range
    return _stretch(values, low, high)


def _stretch(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """``low`` -> 0, ``high`` -> 255, clipped and rounded to uint8."""
    if not high > low:
        return np.zeros(values.shape, np.uint8)
    scaled = (values - low) * (255.0 / (high - low))
    return np.clip(np.rint(scaled), 0, 255).astype(np.uint8)


def array_to_rgb(samples: np.ndarray, value_range: ValueRange = 'full',
                 name: str = 'image') -> np.ndarray:
    """An ``[H, W]`` or ``[H, W, C]`` array of RGB-ordered bands as an RGB
    uint8 array ``[H, W, 3]``.

    Bands: 1 (grey, repeated), 2 (grey and alpha), 3 (RGB) or 4 (RGB and
    alpha); alpha is dropped. Samples go through :func:`to_uint8`.

    Raises:
        UnsupportedImageError: Another shape or number of bands, or samples
            :func:`to_uint8` refuses; the message names the image.
    """
    if samples.ndim == 3 and samples.shape[2] in (1, 2):
        samples = samples[:, :, 0]
    if samples.ndim not in (2, 3) or 0 in samples.shape or (
            samples.ndim == 3 and samples.shape[2] not in (3, 4)):
        raise UnsupportedImageError(
            f'{name}: an image of shape {tuple(samples.shape)} cannot be read '
            f'as RGB: 1, 2 (grey, alpha), 3 (RGB) or 4 (RGBA) bands are '
            f'supported; select three bands of a multi-band raster first')
    if samples.ndim == 3:
        samples = samples[:, :, :3]
    out = to_uint8(samples, value_range, name)
    if out.ndim == 2:
        out = np.repeat(out[:, :, None], 3, axis=2)
    return np.ascontiguousarray(out)


def high_bytes_only(img: Image.Image) -> bool:
    """Whether PIL reads ``img`` (not yet loaded) as 8 bits a sample from
    16-bit samples (16-bit RGB, RGBA and grey-alpha PNG, 16-bit RGB TIFF:
    PIL keeps the high byte)."""
    for tile in getattr(img, 'tile', None) or ():
        args = tile[3] if len(tile) > 3 else None
        rawmode = args[0] if isinstance(args, tuple) and args else args
        if isinstance(rawmode, str) and ';16' in rawmode and \
                img.mode in ('RGB', 'RGBA', 'LA'):
            return True
    return False


def _is_tiff(data: bytes) -> bool:
    return data[:4] in (b'II*\x00', b'MM\x00*', b'II+\x00', b'MM\x00+')


def _decode_samples(data: bytes, name: str) -> np.ndarray:
    """The samples of a file PIL cannot read at full depth (16-bit RGB PNG
    or TIFF, float or multi-band TIFF), RGB-ordered ``[H, W(, C)]``: with
    tifffile when installed (TIFF), else OpenCV (a dependency of MMCV).
    Other files PIL does not recognise are not tried."""
    is_tiff = _is_tiff(data)
    if not is_tiff and data[:8] != b'\x89PNG\r\n\x1a\n':
        raise UnidentifiedImageError(
            f'{name}: not an image file this reader can decode (supported: '
            f'{_SUPPORTED})')
    if is_tiff:
        try:
            import tifffile
        except ImportError:
            tifffile = None
        if tifffile is not None:
            samples = tifffile.imread(io.BytesIO(data))
            if samples.ndim == 3 and samples.shape[0] <= 4 < samples.shape[2]:
                samples = np.moveaxis(samples, 0, 2)  # planar -> interleaved
            return samples
    samples = None if cv2 is None else cv2.imdecode(
        np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if samples is None:
        raise UnidentifiedImageError(
            f'{name}: not an image file this reader can decode (supported: '
            f'{_SUPPORTED}; other TIFFs may need tifffile installed)')
    if samples.ndim == 3 and samples.shape[2] in (3, 4):  # BGR(A) -> RGB(A)
        samples = np.concatenate(
            [samples[:, :, 2::-1], samples[:, :, 3:]], axis=2)
    return samples


#: PNG chunks that change no pixel PIL reads (neither PIL nor OpenCV applies
#: colour space, gamma or background chunks).
PLAIN_PNG_CHUNKS = frozenset((b'IHDR', b'IDAT', b'IEND', b'tEXt', b'pHYs',
                              b'gAMA', b'cHRM', b'sRGB', b'sBIT', b'bKGD',
                              b'tIME', b'tRNS'))


def is_plain_png(data: bytes) -> bool:
    """Whether ``data`` is a PNG that :func:`decode_plain_png` decodes: 8
    bits a sample, grey, grey-alpha, RGB or RGBA, not interlaced, only
    :data:`PLAIN_PNG_CHUNKS` and no tEXt key that may hold an EXIF or XMP
    orientation (no palette, ICC profile or compressed text), ending with
    IEND. A walk over the chunk headers.

    Args:
        data (bytes): An encoded file.
    """
    # IHDR at 16: width, height, bit depth, colour type, ..., interlace
    if data[:8] != b'\x89PNG\r\n\x1a\n' or data[12:16] != b'IHDR' or \
            len(data) < 33 or data[24] != 8 or data[25] not in (0, 2, 4, 6) \
            or data[28] != 0:
        return False
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack_from('>I4s', data, pos)
        if kind not in PLAIN_PNG_CHUNKS:
            return False
        if kind == b'tEXt':
            key = data[pos + 8:pos + 8 + min(length, 80)].split(b'\0')[0]
            if b'exif' in key.lower() or b'xmp' in key.lower():
                return False
        elif kind == b'IEND':
            return True
        pos += 12 + length
    return False


def decode_plain_png(data: bytes) -> Optional[np.ndarray]:
    """A plain PNG (:func:`is_plain_png`) decoded by OpenCV's libpng into
    the RGB uint8 array ``[H, W, 3]`` PIL gives (the same pixels: PNG is
    lossless), faster, in one call that releases the interpreter lock.

    Args:
        data (bytes): An encoded file.

    Returns:
        np.ndarray | None: None when ``data`` is not a plain PNG, or libpng
        refuses it (a bad checksum, missing data): PIL then decodes it, or
        says what is wrong, as for any other image.
    """
    if cv2 is None or not hasattr(cv2, 'IMREAD_COLOR_RGB') or \
            not is_plain_png(data):
        return None
    try:
        return cv2.imdecode(np.frombuffer(data, np.uint8),
                            cv2.IMREAD_COLOR_RGB)
    except cv2.error:
        return None


def image_to_rgb(img: Image.Image, name: str,
                 value_range: ValueRange = 'full',
                 data: Optional[bytes] = None) -> np.ndarray:
    """Decode an opened image into an upright RGB uint8 array ``[H, W, 3]``.

    The one decoding of every image mmidc reads: the training transform
    (``LoadImagePair``), the pre-resized cache, the data set checks and
    inference (:func:`mmidc.apis.load_rgb_image`). 8-bit images (modes
    :data:`EIGHT_BIT_MODES`) are read as stored: RGBA / LA lose their alpha,
    palette, grey and CMYK images are converted to RGB. Wider samples
    (16-bit and 32-bit integer and float grey, 16-bit RGB) are mapped to
    8 bits by ``value_range`` (:func:`to_uint8`). An EXIF orientation is
    applied (:func:`apply_orientation`): a photo stored sideways is read
    upright. A plain 8-bit PNG given as ``data`` is decoded by libpng
    (:func:`decode_plain_png`), to the same pixels.

    Args:
        img (PIL.Image.Image): The image, opened and not necessarily loaded.
        name (str): How to call the image in errors and warnings.
        value_range (str | tuple): The bit depth policy. Defaults to
            ``'full'``.
        data (bytes, optional): The encoded file: a 16-bit RGB image is
            decoded from it at full depth (PIL keeps only the high byte).
            Without it, the file ``img`` was opened from is read again.

    Raises:
        UnsupportedImageError: A mode, dtype, number of bands or values it
            cannot map (the message names ``name`` and what is supported).
        OSError: The pixel data does not decode.
    """
    rgb = None if data is None else decode_plain_png(data)
    if rgb is not None:
        return rgb
    wide = high_bytes_only(img)
    img.load()
    orientation = exif_orientation(img, name)
    if wide:
        if data is None and getattr(img, 'filename', None):
            with open(img.filename, 'rb') as f:
                data = f.read()
        if data is None:
            raise UnsupportedImageError(
                f'{name}: a 16-bit {img.mode} image opened in PIL has lost '
                f'its low bytes; pass its file or bytes instead')
        rgb = array_to_rgb(_decode_samples(data, name), value_range, name)
    elif img.mode in WIDE_MODES:
        rgb = array_to_rgb(np.asarray(img), value_range, name)
    elif img.mode in EIGHT_BIT_MODES:
        if img.mode == 'P' and 'transparency' in img.info:
            img = img.convert('RGBA')
        rgb = np.asarray(img.convert('RGB'))
    else:
        raise UnsupportedImageError(
            f'{name}: image mode {img.mode!r} is not supported (supported: '
            f'{_SUPPORTED})')
    return apply_orientation(rgb, orientation)


def decode_rgb(data: bytes, name: str,
               value_range: ValueRange = 'full') -> np.ndarray:
    """Decode an encoded image file's bytes with :func:`image_to_rgb`.

    Files PIL does not recognise (float or multi-band TIFF) are decoded with
    tifffile when installed, else OpenCV, without EXIF orientation.

    Args:
        data (bytes): The file's content.
        name (str): How to call the image in errors.
        value_range (str | tuple): See :func:`to_uint8`.

    Raises:
        UnsupportedImageError, OSError: As :func:`image_to_rgb`; a file no
            decoder reads is a ``PIL.UnidentifiedImageError`` (an OSError).
    """
    try:
        img = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        if not _is_tiff(data):
            raise
        return array_to_rgb(_decode_samples(data, name), value_range, name)
    with img:
        return image_to_rgb(img, name, value_range, data)


def read_rgb(path: str, backend_args: Optional[dict] = None,
             value_range: ValueRange = 'full') -> np.ndarray:
    """Decode an image file into an upright RGB uint8 array ``[H, W, 3]``
    (:func:`image_to_rgb` says how modes, orientation and bit depths are read).

    Args:
        path (str): The image: a local path, or any path or URI that
            :func:`mmengine.fileio.get` reads (``s3://...``, ``http://...``,
            a registered backend's prefix).
        backend_args (dict, optional): MMEngine's file backend arguments,
            e.g. ``dict(backend='petrel', path_mapping=...)``. Defaults to
            None: the backend is inferred from ``path``'s prefix (local
            files without one).
        value_range (str | tuple): How 16-bit and float samples map to
            8 bits (:func:`to_uint8`). Defaults to ``'full'``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        UnsupportedImageError: the image decodes but its mode, bands or
            values are not supported; the message names ``path``.
        OSError: the file cannot be decoded; the message names ``path``.
    """
    value_range = check_value_range(value_range)
    try:
        data = fileio.get(path, backend_args=backend_args)
    except (FileNotFoundError, IsADirectoryError):
        raise FileNotFoundError(f'image not found: {path}') from None
    try:
        return decode_rgb(data, path, value_range)
    except UnsupportedImageError:
        raise
    except Exception as e:  # PIL raises many types for bad files
        raise OSError(f'cannot decode image {path} '
                      f'({type(e).__name__}: {e})') from e


def image_decode_problem(path: str,
                         value_range: ValueRange = 'full') -> Optional[str]:
    """What stops an image file from decoding, or None.

    PIL's ``verify`` (the file's structure; the chunk CRCs of a PNG), then a
    full decode with :func:`read_rgb`, as the data pipeline decodes it:
    ``verify`` alone passes a JPEG whose markers are intact but whose scan
    data is damaged (zeroed), which then fails when decoded.

    Args:
        path (str): A local image file.
        value_range (str | tuple): As the pipeline's ``LoadImagePair``
            reads it (:func:`to_uint8`). Defaults to ``'full'``.

    Returns:
        str | None: What is wrong (``'does not decode (...)'``), or None.
    """
    try:
        with Image.open(path) as img:
            img.verify()
        read_rgb(path, value_range=value_range)
    except Exception as e:  # PIL raises many types for bad files
        cause = e.__cause__ if isinstance(e.__cause__, Exception) else e
        return f'does not decode ({type(cause).__name__}: {cause})'
    return None


#: Relative difference of a pair's two aspect ratios above which the pair is
#: reported (a warning: it is used all the same).
ASPECT_TOLERANCE = 0.25


def pair_size_mismatch(shape1: Sequence[int], shape2: Sequence[int],
                       aspect_tolerance: Optional[float] = ASPECT_TOLERANCE
                       ) -> Optional[str]:
    """Say how a pair's two images differ in aspect ratio, or None.

    The rule for pairs whose images differ in size, in training and
    inference alike: each image is resized to the model's input size on its
    own (``ResizePair``), so any two sizes are used and nothing is dropped.
    A difference of the aspect ratios above ``aspect_tolerance`` (relative)
    stretches the scene differently in the two images; it is worth a
    warning, never an error.

    Args:
        shape1, shape2 (Sequence[int]): ``(H, W)`` of each image.
        aspect_tolerance (float, optional): The relative difference allowed
            without a word. None: never report.

    Returns:
        str | None: ``'480x320 and 320x480 (width x height)'``, or None.
    """
    (h1, w1), (h2, w2) = shape1[:2], shape2[:2]
    if aspect_tolerance is None or not min(h1, w1, h2, w2) > 0:
        return None
    aspect1, aspect2 = w1 / h1, w2 / h2
    if max(aspect1, aspect2) / min(aspect1, aspect2) <= 1 + aspect_tolerance:
        return None
    return f'{w1}x{h1} and {w2}x{h2} (width x height)'


def to_hw(size: Union[int, Sequence[int]], name: str) -> Tuple[int, int]:
    """Normalise an int or ``(H, W)`` option, naming it in errors."""
    if isinstance(size, int):
        size = (size, size)
    size = tuple(size)
    if len(size) != 2 or not all(isinstance(s, int) and s > 0 for s in size):
        raise ValueError(f'{name} must be a positive int or (H, W), got '
                         f'{size!r}')
    return size


def resize_rgb(img: np.ndarray, size: Tuple[int, int]) -> np.ndarray:
    """Bicubic resize of a uint8 ``[H, W, 3]`` array to ``size = (H, W)``.

    PIL's antialiased bicubic, as CLIP's own preprocessing uses. The
    pre-resized cache is written with this function, so cached pixels equal
    resized-from-file pixels exactly.
    """
    if img.shape[:2] == tuple(size):
        return img
    height, width = size
    resized = Image.fromarray(img).resize((width, height), Image.BICUBIC)
    return np.asarray(resized)
