"""Random resized crop (and optional flip) shared by both images."""
import math
import re
from typing import Sequence, Tuple, Union

import numpy as np
from mmcv.transforms import BaseTransform
from PIL import Image

from mmidc.registry import TRANSFORMS
from ..image_io import to_hw

_LEFT_RIGHT = re.compile(r'\b(left|right)\b')


def swap_left_right(caption: str) -> str:
    """Swap the words ``left`` and ``right`` (for a mirrored pair)."""
    return _LEFT_RIGHT.sub(
        lambda m: 'right' if m.group(1) == 'left' else 'left', caption)


@TRANSFORMS.register_module()
class PairRandomResizedCrop(BaseTransform):
    """Crop the same random box from both images and resize it to ``size``.

    One box is drawn per pair, in coordinates relative to the image size, so
    both images see the same region even when their pixel sizes differ.
    The default ``scale`` is mild (80-100% of the area): a tight crop could
    cut away the object whose change the caption describes.

    No horizontal flip by default (``flip_prob=0``): captions say "left of"
    / "right of", and a mirrored pair would contradict them. With
    ``flip_prob > 0`` both images are mirrored together and the words
    ``left`` / ``right`` of ``gt_captions`` swapped, so captions stay true.

    Required keys: ``img1``, ``img2``. Modified keys: ``img1``, ``img2``,
    ``gt_captions`` (flip only). Added keys: ``img_shape``, ``crop_box``
    (relative ``(top, left, height, width)``), ``flipped``.

    Args:
        size (int | Sequence[int]): Output ``(H, W)`` or one int.
        scale (Sequence[float]): Range of the crop's area fraction.
            Defaults to (0.8, 1.0).
        ratio (Sequence[float]): Range of the crop's aspect ratio relative
            to the image's. Defaults to (3/4, 4/3).
        flip_prob (float): Probability of mirroring the pair. Defaults to 0.
    """

    def __init__(self,
                 size: Union[int, Sequence[int]],
                 scale: Sequence[float] = (0.8, 1.0),
                 ratio: Sequence[float] = (3. / 4., 4. / 3.),
                 flip_prob: float = 0.0):
        self.size = to_hw(size, 'PairRandomResizedCrop.size')
        if not 0 < scale[0] <= scale[1] <= 1:
            raise ValueError(f'PairRandomResizedCrop.scale must satisfy '
                             f'0 < min <= max <= 1, got {scale}')
        if not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f'PairRandomResizedCrop.ratio must satisfy '
                             f'0 < min <= max, got {ratio}')
        if not 0 <= flip_prob <= 1:
            raise ValueError(f'PairRandomResizedCrop.flip_prob must be in '
                             f'[0, 1], got {flip_prob}')
        self.scale, self.ratio, self.flip_prob = scale, ratio, flip_prob

    def sample_box(self) -> Tuple[float, float, float, float]:
        """A relative ``(top, left, height, width)`` box (one per pair)."""
        for _ in range(10):
            area = np.random.uniform(*self.scale)
            aspect = math.exp(np.random.uniform(*np.log(self.ratio)))
            width, height = math.sqrt(area * aspect), math.sqrt(area / aspect)
            if width <= 1 and height <= 1:
                top = np.random.uniform(0, 1 - height)
                left = np.random.uniform(0, 1 - width)
                return top, left, height, width
        return 0.0, 0.0, 1.0, 1.0

    def _crop(self, img: np.ndarray, box, flip: bool) -> np.ndarray:
        top, left, height, width = box
        img_h, img_w = img.shape[:2]
        pixel_box = (left * img_w, top * img_h, (left + width) * img_w,
                     (top + height) * img_h)
        out = Image.fromarray(img).resize(self.size[::-1], Image.BICUBIC,
                                          box=pixel_box)
        if flip:
            out = out.transpose(Image.FLIP_LEFT_RIGHT)
        return np.asarray(out)

    def transform(self, results: dict) -> dict:
        box = self.sample_box()
        flip = bool(np.random.rand() < self.flip_prob)
        results['img1'] = self._crop(results['img1'], box, flip)
        results['img2'] = self._crop(results['img2'], box, flip)
        if flip and 'gt_captions' in results:
            results['gt_captions'] = [
                swap_left_right(c) for c in results['gt_captions']
            ]
        results['img_shape'] = self.size
        results['crop_box'] = box
        results['flipped'] = flip
        return results

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(size={self.size}, '
                f'scale={self.scale}, ratio={self.ratio}, '
                f'flip_prob={self.flip_prob})')
