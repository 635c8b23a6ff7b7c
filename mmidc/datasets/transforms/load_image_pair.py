"""Load the two images of a pair as RGB uint8 arrays."""
from typing import Optional, Sequence

import numpy as np
from mmcv.transforms import BaseTransform

from mmidc.registry import TRANSFORMS
from ..image_io import read_rgb
from ..pair_image_cache import PairImageCache


@TRANSFORMS.register_module()
class LoadImagePair(BaseTransform):
    """Read ``img1_path`` and ``img2_path`` into ``img1`` / ``img2``.

    Required keys: ``img1_path``, ``img2_path``.
    Added keys: ``img1``, ``img2`` (RGB uint8 ``[H, W, 3]``), ``ori_shape``
    (the ``(H, W)`` of each image as loaded).

    With ``cache_dir`` set, images come from a pre-resized cache written by
    ``tools/dataset_converters/build_resized_cache.py`` (a uint8 memmap: no
    PNG decoding at all). Images the cache lacks, or whose source file
    changed since the cache was built, are decoded from the original file,
    with a warning logged once; so is the whole set when the cache folder or
    a cache of ``cache_size`` is absent. Cached images are already
    ``cache_size``: follow with ``ResizePair`` of the same size (a no-op).

    Args:
        cache_dir (str, optional): The cache folder, e.g.
            ``<data_root>/cache_224x224``. Defaults to None (no cache).
        cache_size (Sequence[int], optional): ``(H, W)`` of the cache to use;
            required with ``cache_dir``.
        check_stale (bool): Compare each source file's size and mtime with
            the ones recorded in the cache (one ``stat`` per image).
            Defaults to True.
    """

    def __init__(self,
                 cache_dir: Optional[str] = None,
                 cache_size: Optional[Sequence[int]] = None,
                 check_stale: bool = True):
        if cache_dir is not None and cache_size is None:
            raise ValueError('LoadImagePair: cache_dir needs cache_size=(H, W)')
        self.cache = (PairImageCache(cache_dir, cache_size, check_stale)
                      if cache_dir is not None else None)

    def _read(self, path: str) -> np.ndarray:
        if self.cache is not None:
            img = self.cache.get(path)
            if img is not None:
                return img
        return read_rgb(path)

    def transform(self, results: dict) -> dict:
        img1 = self._read(results['img1_path'])
        img2 = self._read(results['img2_path'])
        results['img1'] = img1
        results['img2'] = img2
        results['ori_shape'] = (img1.shape[:2], img2.shape[:2])
        return results

    def __repr__(self) -> str:
        cache = self.cache.cache_dir if self.cache is not None else None
        return f'{self.__class__.__name__}(cache_dir={cache!r})'
