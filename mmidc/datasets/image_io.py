"""Image decoding and resizing shared by the transforms and the cache."""
import io
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from mmengine import fileio
from PIL import Image

#: 16/32-bit integer grey modes: PIL's ``convert('RGB')`` clips them, so they
#: are rescaled from the 16-bit range instead.
_WIDE_GREY_MODES = ('I', 'I;16', 'I;16B', 'I;16L', 'I;16N')


def read_rgb(path: str, backend_args: Optional[dict] = None) -> np.ndarray:
    """Decode an image file into an RGB uint8 array ``[H, W, 3]``.

    RGBA / LA lose their alpha (CLEVR's alpha channel is opaque), palette,
    grey, 16-bit grey and CMYK images are converted to RGB.

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
            if img.mode in _WIDE_GREY_MODES:
                grey = np.asarray(img, dtype=np.float32) / 257.0
                grey = np.clip(np.rint(grey), 0, 255).astype(np.uint8)
                return np.repeat(grey[:, :, None], 3, axis=2)
            if img.mode == 'P' and 'transparency' in img.info:
                img = img.convert('RGBA')
            return np.asarray(img.convert('RGB'))
    except Exception as e:  # PIL raises many types for bad files
        raise OSError(f'cannot decode image {path} '
                      f'({type(e).__name__}: {e})') from e


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
