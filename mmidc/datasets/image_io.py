"""Image decoding and resizing shared by the transforms and the cache.

Images are read upright: a photo stored sideways with an EXIF orientation
(a phone photo, orientation 6 say) is turned as its orientation says
(:func:`exif_orientation`, :func:`apply_orientation`), in training, the
image cache and inference alike.
"""
import io
import logging
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from mmengine import fileio
from mmengine.logging import print_log
from PIL import Image

#: 16/32-bit integer grey modes: PIL's ``convert('RGB')`` clips them, so they
#: are rescaled from the 16-bit range instead.
_WIDE_GREY_MODES = ('I', 'I;16', 'I;16B', 'I;16L', 'I;16N')


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


def apply_orientation(array: np.ndarray, orientation: int) -> np.ndarray:
    """Turn an ``[H, W, ...]`` array stored with an EXIF ``orientation`` upright.

    The same pixels as ``PIL.ImageOps.exif_transpose``: 2 mirrors, 3 turns
    by 180 degrees, 4 flips, 5 transposes, 6 turns clockwise by 90 degrees
    (a phone held upright), 7 transverses, 8 turns counter-clockwise by 90
    degrees; 1 (or any other value) leaves the array as it is.
    """
    if orientation == 2:
        array = array[:, ::-1]
    elif orientation == 3:
        array = array[::-1, ::-1]
    elif orientation == 4:
        array = array[::-1]
    elif orientation == 5:
        array = array.swapaxes(0, 1)
    elif orientation == 6:
        array = np.rot90(array, k=-1)
    elif orientation == 7:
        array = array.swapaxes(0, 1)[::-1, ::-1]
    elif orientation == 8:
        array = np.rot90(array, k=1)
    else:
        return array
    return np.ascontiguousarray(array)


def read_rgb(path: str, backend_args: Optional[dict] = None) -> np.ndarray:
    """Decode an image file into an upright RGB uint8 array ``[H, W, 3]``.

    RGBA / LA lose their alpha (CLEVR's alpha channel is opaque), palette,
    grey, 16-bit grey and CMYK images are converted to RGB. An EXIF
    orientation is applied (:func:`apply_orientation`): a photo stored
    sideways is read upright.

    Args:
        path (str): The image: a local path, or any path or URI that
            :func:`mmengine.fileio.get` reads (``s3://...``, ``http://...``,
            a registered backend's prefix).
        backend_args (dict, optional): MMEngine's file backend arguments,
            e.g. ``dict(backend='petrel', path_mapping=...)``. Defaults to
            None: the backend is inferred from ``path``'s prefix (local
            files without one).

    Raises:
        FileNotFoundError: ``path`` does not exist.
        OSError: the file cannot be decoded; the message names ``path``.
    """
    try:
        data = fileio.get(path, backend_args=backend_args)
    except (FileNotFoundError, IsADirectoryError):
        raise FileNotFoundError(f'image not found: {path}') from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            orientation = exif_orientation(img, path)
            if img.mode in _WIDE_GREY_MODES:
                grey = np.asarray(img, dtype=np.float32) / 257.0
                grey = np.clip(np.rint(grey), 0, 255).astype(np.uint8)
                rgb = np.repeat(grey[:, :, None], 3, axis=2)
            else:
                if img.mode == 'P' and 'transparency' in img.info:
                    img = img.convert('RGBA')
                rgb = np.asarray(img.convert('RGB'))
    except Exception as e:  # PIL raises many types for bad files
        raise OSError(f'cannot decode image {path} '
                      f'({type(e).__name__}: {e})') from e
    return apply_orientation(rgb, orientation)


def image_decode_problem(path: str) -> Optional[str]:
    """What stops an image file from decoding, or None.

    PIL's ``verify`` (the file's structure; the chunk CRCs of a PNG), then a
    full decode with :func:`read_rgb`, as the data pipeline decodes it:
    ``verify`` alone passes a JPEG whose markers are intact but whose scan
    data is damaged (zeroed), which then fails when decoded.

    Args:
        path (str): A local image file.

    Returns:
        str | None: What is wrong (``'does not decode (...)'``), or None.
    """
    try:
        with Image.open(path) as img:
            img.verify()
        read_rgb(path)
    except Exception as e:  # PIL raises many types for bad files
        cause = e.__cause__ if isinstance(e.__cause__, Exception) else e
        return f'does not decode ({type(cause).__name__}: {cause})'
    return None


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
