"""Photos stored sideways with an EXIF orientation, as cameras and phones
write them, for the orientation tests."""
import io

import numpy as np
from PIL import Image

#: EXIF orientation -> the transpose that turns the upright picture into the
#: stored one (the inverse of what a viewer applies).
STORE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
         4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
         6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
         8: Image.Transpose.ROTATE_270}


def upright_picture(height: int = 24, width: int = 40) -> np.ndarray:
    """An RGB picture taller or wider than square with distinct corners in
    coarse 8-pixel blocks (they survive JPEG): red top left, green top
    right, blue bottom left, white bottom right, grey elsewhere."""
    img = np.full((height, width, 3), 128, np.uint8)
    img[:8, :8] = (255, 0, 0)
    img[:8, -8:] = (0, 255, 0)
    img[-8:, :8] = (0, 0, 255)
    img[-8:, -8:] = (255, 255, 255)
    return img


def oriented_bytes(upright: np.ndarray, orientation: int,
                   fmt: str = 'PNG') -> bytes:
    """``upright`` stored as a camera with ``orientation`` stores it: the
    pixels turned, the EXIF orientation tag set (PNG: an eXIf chunk)."""
    stored = Image.fromarray(upright)
    if orientation in STORE:
        stored = stored.transpose(STORE[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    options = dict(quality=95) if fmt == 'JPEG' else {}
    stored.save(buffer, format=fmt, exif=exif, **options)
    return buffer.getvalue()


def corners(img: np.ndarray) -> list:
    """The mean colour of the four corner blocks (top left, top right,
    bottom left, bottom right), rounded to 0 or 255 per channel."""
    blocks = (img[:4, :4], img[:4, -4:], img[-4:, :4], img[-4:, -4:])
    return [tuple(int(v) for v in np.where(b.reshape(-1, 3).mean(0) > 128,
                                           255, 0)) for b in blocks]
