"""Load and check user images for inference: paths, PIL images or arrays.

Everything that reaches the model goes through :func:`load_rgb_image`, which
returns an RGB ``uint8`` array ``[H, W, 3]`` and turns every way an input can
be bad into an :class:`ImageInputError` naming the image: malformed files are
an :class:`ImageDecodeError`, images over a budget an
:class:`ImageTooLargeError`, so that a server can answer 400 and 413 (the
table of checks: docs/inference.md, "Inputs and their checks"). Huge images
never get fully decoded: above ``max_pixels`` a JPEG is decoded at reduced
scale (``PIL.Image.draft``), other formats are refused, as is any image PIL
calls a decompression bomb. Files, uploads and PIL images are decoded by the
function training decodes with (:func:`mmidc.datasets.image_io.image_to_rgb`:
EXIF orientation, the config's ``value_range``), so a pair gives the model
equal arrays in both.
"""
import struct
import io
import logging
import math
import os
import warnings
from pathlib import Path
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from mmengine.logging import print_log
from PIL import Image, UnidentifiedImageError

from mmidc.datasets.image_io import (ASPECT_TOLERANCE, EIGHT_BIT_MODES,
                                    UnsupportedImageError, ValueRange,
                                    array_to_rgb, check_value_range,
                                    decode_rgb, high_bytes_only,
                                    image_to_rgb, pair_size_mismatch)

ImageInput = Union[str, os.PathLike, bytes, Image.Image, np.ndarray]

#: Default pixel budget of one input image (40 megapixels).
DEFAULT_MAX_PIXELS = 40_000_000


class ImageInputError(ValueError):
    """An input image is missing, unreadable, too large or mismatched."""


class ImageDecodeError(ImageInputError):
    """An input image's data cannot be decoded (malformed or truncated)."""


class ImageTooLargeError(ImageInputError):
    """An input image has more pixels than allowed."""


# What Pillow raises on malformed data besides OSError: ValueError (text and
# profile chunks over PngImagePlugin.MAX_TEXT_CHUNK, a short tRNS chunk),
# SyntaxError (broken PNG chunks), struct.error, IndexError, TypeError,
# EOFError (cut-off headers of some formats).
_DECODE_ERRORS = (OSError, ValueError, SyntaxError, struct.error, IndexError,
                  TypeError, EOFError)


def describe_image(image: ImageInput, name: Optional[str] = None) -> str:
    """A short name for an input image, used in messages."""
    if name is not None:
        return name
    if isinstance(image, (str, os.PathLike)):
        return str(image)
    if isinstance(image, Image.Image):
        return f'PIL image {image.size[0]}x{image.size[1]}'
    if isinstance(image, np.ndarray):
        return f'array {tuple(image.shape)}'
    if isinstance(image, (bytes, bytearray)):
        return f'{len(image)}-byte image'
    return type(image).__name__


def load_rgb_image(image: ImageInput,
                   max_pixels: Optional[int] = DEFAULT_MAX_PIXELS,
                   name: Optional[str] = None,
                   value_range: ValueRange = 'full') -> np.ndarray:
    """Load one image as an RGB ``uint8`` array ``[H, W, 3]``.

    Args:
        image (str | PathLike | bytes | PIL.Image.Image | np.ndarray): a file
            path, an encoded file's bytes (an upload), a PIL image, or an
            array ``[H, W]``, ``[H, W, 3]`` (RGB) or ``[H, W, 4]`` (RGBA,
            alpha dropped). Arrays are read as RGB, as
            PIL gives them (not BGR as OpenCV does); ``uint8`` as stored,
            integers and floats by ``value_range``.
        max_pixels (int, optional): pixel budget; larger images are decoded
            at reduced size when the format allows it (JPEG) and shrunk to
            fit, otherwise refused. None: no limit beyond PIL's own.
        name (str, optional): how to call the image in messages.
        value_range (str | tuple): how samples wider than 8 bits (16-bit
            PNG/TIFF, float TIFF, integer and float arrays) map to 8 bits,
            as in training (:func:`mmidc.datasets.image_io.to_uint8`):
            ``'full'`` (16-bit 0-65535, float 0-1; the default),
            ``(low, high)``, ``'image'`` or ``'percentile'``.

    Returns:
        np.ndarray: RGB ``uint8`` array ``[H, W, 3]``, upright: the EXIF
        orientation of a file, upload or PIL image is applied.

    Raises:
        ImageInputError: missing file, undecodable or truncated image, bad
            array, an unsupported mode, dtype or number of bands, NaN in a
            float image, or an image over the pixel budget that cannot be
            decoded at reduced size.
    """
    label = describe_image(image, name)
    value_range = check_value_range(value_range)
    data, shrink = None, False
    if isinstance(image, (str, os.PathLike)):
        if not Path(image).is_file():
            raise ImageInputError(f'{label}: no such image file')
        try:
            data = Path(image).read_bytes()
        except OSError as err:
            raise ImageDecodeError(
                f'{label}: cannot read the file ({_short(err)})') from err
    elif isinstance(image, (bytes, bytearray)):
        data = bytes(image)
    elif isinstance(image, Image.Image):
        pil = image
        if max_pixels is not None and _area(pil.size) > max_pixels:
            if pil.mode in EIGHT_BIT_MODES and not high_bytes_only(pil):
                pil = pil.copy()  # 8-bit: shrink first (a JPEG at reduced scale)
                pil.thumbnail(_fit_size(pil.size, max_pixels))
            else:  # decode at full depth, then shrink the RGB result
                shrink = True
    elif isinstance(image, np.ndarray):
        return _array_to_rgb(image, label, value_range)
    else:
        raise ImageInputError(
            f'{label}: expected a path, bytes, a PIL image or a numpy array')
    try:
        if data is not None:
            pil = _open_file(io.BytesIO(data), max_pixels, label)
            if pil is None:  # not for PIL: a float or multi-band TIFF?
                rgb = decode_rgb(data, label, value_range)
                if max_pixels is not None and _area(rgb.shape[1::-1]) > max_pixels:
                    raise _too_large(label, rgb.shape[1::-1], max_pixels)
                return rgb
        rgb = image_to_rgb(pil, label, value_range, data)
    except ImageInputError:
        raise
    except UnsupportedImageError as err:
        raise ImageDecodeError(str(err)) from err
    except UnidentifiedImageError as err:
        raise ImageDecodeError(
            f'{label}: not a readable image file (no image format '
            f'recognised)') from err
    except _DECODE_ERRORS as err:  # truncated or corrupt data
        raise ImageDecodeError(
            f'{label}: cannot decode image ({_short(err)})') from err
    if shrink:  # a PIL image over the budget: decoded already, shrink it
        small = Image.fromarray(rgb)
        small.thumbnail(_fit_size(small.size, max_pixels))
        rgb = np.asarray(small)
    return rgb


def _megapixels(pixels: int, other: int) -> str:
    """``pixels`` in megapixels, with the fewest decimals (one to six) that
    tell it apart from ``other``: ``40.000001`` beside ``40.000000``."""
    for digits in range(1, 7):
        text = f'{pixels / 1e6:.{digits}f}'
        if text != f'{other / 1e6:.{digits}f}':
            return text
    return text


def _too_large(label: str, size: Tuple[int, int], max_pixels: int,
               why: str = '') -> ImageTooLargeError:
    """The error that refuses an image of ``size`` (``(w, h)``), over the
    budget (``why``: what else keeps it from being shrunk)."""
    return ImageTooLargeError(
        f'{label}: refused, {size[0]}x{size[1]} = '
        f'{_megapixels(_area(size), max_pixels)} megapixels is above the '
        f'limit of {_megapixels(max_pixels, _area(size))}{why}; downscale it '
        'first or raise max_pixels.')


def check_pair_sizes(size1: Tuple[int, int],
                     size2: Tuple[int, int],
                     names: Sequence[str],
                     aspect_tolerance: Optional[float] = ASPECT_TOLERANCE,
                     area_warn_ratio: float = 4.0) -> None:
    """Warn about a pair whose two images differ much in shape or size.

    Both images are resized to the model's input size, each on its own, as
    in training (``ResizePair``): any two sizes are captioned. A relative
    difference of the aspect ratios above ``aspect_tolerance`` (the scene
    is stretched differently in the two images;
    :func:`mmidc.datasets.image_io.pair_size_mismatch`) and an area ratio
    above ``area_warn_ratio`` (the larger image loses more detail) are
    logged as warnings naming both images.

    Args:
        size1, size2 (tuple[int, int]): ``(width, height)`` of each image.
        names (Sequence[str]): the two images' names, for the messages.
        aspect_tolerance (float, optional): relative difference of the
            aspect ratios allowed without a warning. None: no check.
        area_warn_ratio (float): warn above this ratio of the areas.
    """
    (w1, h1), (w2, h2) = size1, size2
    mismatch = pair_size_mismatch((h1, w1), (h2, w2), aspect_tolerance)
    if mismatch is not None:
        print_log(
            f'the two images of a pair have very different aspect ratios: '
            f'{names[0]} is {w1}x{h1}, {names[1]} is {w2}x{h2}; each is '
            f'resized to the model input size on its own (as in training), '
            f'so the scene is stretched differently in the two. A pair '
            f'should show the same scene before and after a change; crop '
            f'them alike for a better caption.',
            logger='current', level=logging.WARNING)
    area_ratio = max(w1 * h1, w2 * h2) / min(w1 * h1, w2 * h2)
    if area_ratio > area_warn_ratio:
        print_log(
            f'the two images of a pair differ much in size: {names[0]} is '
            f'{w1}x{h1}, {names[1]} is {w2}x{h2}; both are resized to the '
            f'model input size, details of the larger one are lost.',
            logger='current', level=logging.WARNING)


def _open_file(source: Union[Path, io.BytesIO], max_pixels: Optional[int],
               label: str) -> Optional[Image.Image]:
    """The opened image (shrunk to ``max_pixels`` if a JPEG), or None when
    PIL recognises no format."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', Image.DecompressionBombWarning)
            pil = Image.open(source)  # reads the header only
    except Image.DecompressionBombError as err:
        raise ImageTooLargeError(
            f'{label}: refused, the image is too large to decode safely '
            f'(more than {2 * Image.MAX_IMAGE_PIXELS / 1e6:.1f} megapixels, '
            f'a possible decompression bomb)') from err
    except UnidentifiedImageError:
        return None
    except _DECODE_ERRORS as err:
        raise ImageDecodeError(
            f'{label}: not a readable image file ({_short(err)})') from err
    if max_pixels is None or _area(pil.size) <= max_pixels:
        return pil
    target = _fit_size(pil.size, max_pixels)
    if pil.format != 'JPEG':
        raise _too_large(label, pil.size, max_pixels, f' and {pil.format} images '
                         'cannot be decoded at reduced size')
    try:
        pil.draft('RGB', target)  # JPEG: decode at 1/2, 1/4 or 1/8 scale
        pil.thumbnail(target)
    except _DECODE_ERRORS as err:
        raise ImageDecodeError(
            f'{label}: cannot decode image ({_short(err)})') from err
    print_log(f'{label}: downscaled to {pil.size[0]}x{pil.size[1]} to stay '
              f'within {max_pixels / 1e6:.1f} megapixels', logger='current')
    return pil


def _array_to_rgb(array: np.ndarray, label: str,
                  value_range: ValueRange) -> np.ndarray:
    if array.ndim not in (2, 3) or 0 in array.shape or (
            array.ndim == 3 and array.shape[2] not in (3, 4)):
        raise ImageInputError(
            f'{label}: expected an array [H, W], [H, W, 3] or [H, W, 4]')
    try:
        return array_to_rgb(array, value_range, label)
    except UnsupportedImageError as err:
        raise ImageInputError(str(err)) from err


def _short(err: Exception, limit: int = 120) -> str:
    text = str(err) or type(err).__name__
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _area(size: Tuple[int, int]) -> int:
    return size[0] * size[1]


def _fit_size(size: Tuple[int, int], max_pixels: int) -> Tuple[int, int]:
    scale = math.sqrt(max_pixels / _area(size))
    return max(1, int(size[0] * scale)), max(1, int(size[1] * scale))
