"""Images of more than 8 bits per sample, written in a test's folder:
16-bit grey PNG (full range, or 12-bit values stored in 16 bits), 16-bit
RGB PNG and float32 TIFF (grey by PIL, three bands by OpenCV)."""
import cv2
import numpy as np
from PIL import Image

#: ``[H, W]`` ramps: every pixel different, 6 x 8.
SHAPE = (6, 8)


def ramp(high: float, dtype) -> np.ndarray:
    """0 .. ``high`` over :data:`SHAPE`, in ``dtype``."""
    values = np.linspace(0, high, SHAPE[0] * SHAPE[1]).reshape(SHAPE)
    if np.issubdtype(np.dtype(dtype), np.integer):
        values = np.rint(values)
    return values.astype(dtype)


def write_wide(folder, kind: str):
    """Write one image; return ``(path, samples)`` (samples RGB-ordered).

    kind: ``'grey16'`` (0-65535), ``'grey12'`` (0-4095 in 16 bits),
    ``'float'`` (float32 0-1, PIL mode F), ``'rgb12'`` (16-bit RGB PNG of
    12-bit values), ``'rgb_float'`` (three-band float32 TIFF 0-1).
    """
    if kind == 'grey16':
        samples, path = ramp(65535, np.uint16), folder / 'grey16.png'
    elif kind == 'grey12':
        samples, path = ramp(4095, np.uint16), folder / 'grey12.png'
    elif kind == 'float':
        samples, path = ramp(1, np.float32), folder / 'float.tif'
    elif kind == 'rgb12':
        grey = ramp(4095, np.uint16)
        samples, path = np.stack([grey, grey // 2, 4095 - grey], 2), \
            folder / 'rgb12.png'
    elif kind == 'rgb_float':
        grey = ramp(1, np.float32)
        samples, path = np.stack([grey, grey / 2, 1 - grey], 2), \
            folder / 'rgb_float.tif'
    else:
        raise ValueError(kind)
    if samples.ndim == 3:  # PIL writes neither: OpenCV, BGR
        assert cv2.imwrite(str(path), samples[:, :, ::-1])
    else:
        Image.fromarray(samples).save(path)
    return path, samples


def expected_rgb(samples: np.ndarray, low: float, high: float) -> np.ndarray:
    """``low`` -> 0, ``high`` -> 255, rounded and clipped, as RGB."""
    out = np.clip(np.rint((samples.astype(np.float64) - low) * 255 /
                          (high - low)), 0, 255).astype(np.uint8)
    return out if out.ndim == 3 else np.repeat(out[:, :, None], 3, axis=2)
