"""Load the two images of a pair as RGB uint8 arrays."""
import logging
from typing import Dict, Optional, Sequence

import numpy as np
from mmcv.transforms import BaseTransform
from mmengine.logging import print_log

from mmidc.registry import TRANSFORMS
from ..image_io import (ValueRange, check_value_range, pair_size_mismatch,
                        read_rgb)
from ..preparation.pair_image_cache import PairImageCache, resolve_cache_dir


@TRANSFORMS.register_module()
class LoadImagePair(BaseTransform):
    """Read ``img1_path`` and ``img2_path`` into ``img1`` / ``img2``.

    Required keys: ``img1_path``, ``img2_path``.
    Added keys: ``img1``, ``img2`` (RGB uint8 ``[H, W, 3]``), ``ori_shape``
    (the ``(H, W)`` of each image as loaded).

    Images are decoded by :func:`~mmidc.datasets.image_io.read_rgb`, the
    decoding inference uses too: 8-bit images as stored, 16-bit and float
    images mapped to 8 bits by ``value_range``. The inferencers read
    ``value_range`` from the config's test pipeline, so a model sees the
    same pixels in training and inference.

    The two images of a pair may differ in size: ``ResizePair`` brings each
    to the model's input size on its own. A pair whose aspect ratios differ
    by more than 25 % (the scene is stretched differently) is still used;
    such pairs decoded from files are counted in a warning (at the 1st,
    10th, 100th... of each worker).

    With ``cache_dir`` set, images come from a pre-resized cache written by
    ``tools/dataset_converters/build_resized_cache.py`` (a uint8 memmap: no
    PNG decoding at all). Images the cache lacks, or whose source file
    changed since the cache was built, are decoded from the original file,
    with a warning logged once; so is the whole set when the cache folder
    holds no cache of ``cache_size`` (without the folder: an info message).
    Cached images are already ``cache_size``: follow with ``ResizePair`` of
    the same size (a no-op).

    ``{data_root}`` in ``cache_dir`` stands for the data root of each sample
    (the data sets put theirs in the sample), so the base configs' default
    ``'{data_root}/cache_224x224'`` follows a ``data_root`` a child config
    sets on its loaders, instead of the one the base was parsed with.

    Args:
        cache_dir (str, optional): The cache folder, e.g.
            ``'{data_root}/cache_224x224'`` or a path. Defaults to None (no
            cache).
        cache_size (Sequence[int], optional): ``(H, W)`` of the cache to use;
            required with ``cache_dir``.
        check_stale (bool): Compare each source file's size and mtime with
            the ones recorded in the cache (one ``stat`` per image).
            Defaults to True.
        backend_args (dict, optional): MMEngine's file backend arguments
            for the images read from their files (:func:`mmengine.fileio.get`:
            data on S3, HTTP, Petrel or a registered backend). Defaults to
            None: the backend follows each path's prefix (local files
            without one). The pre-resized cache is a local file.
        value_range (str | Sequence[float]): How samples wider than 8 bits
            map to 8 bits: ``'full'`` (the default), ``(low, high)``,
            ``'image'`` or ``'percentile'``, each described by
            :func:`~mmidc.datasets.image_io.to_uint8`. Only shards of the
            image cache built with the same policy are read.
    """

    def __init__(self,
                 cache_dir: Optional[str] = None,
                 cache_size: Optional[Sequence[int]] = None,
                 check_stale: bool = True,
                 backend_args: Optional[dict] = None,
                 value_range: ValueRange = 'full'):
        if cache_dir is not None and cache_size is None:
            raise ValueError('LoadImagePair: cache_dir needs cache_size=(H, W)')
        self.cache_dir = cache_dir
        self.cache_size = cache_size
        self.check_stale = check_stale
        self.backend_args = backend_args
        self.value_range = check_value_range(value_range,
                                             'LoadImagePair.value_range')
        self.mismatched_pairs = 0  # aspect ratios far apart, this process
        self._caches: Dict[str, PairImageCache] = {}  # one per folder
        self.cache = None  # the last one used
        if cache_dir is not None and '{data_root}' not in cache_dir:
            self.cache = self._cache_at(cache_dir)

    def _cache_at(self, folder: str) -> PairImageCache:
        if folder not in self._caches:
            self._caches[folder] = PairImageCache(folder, self.cache_size,
                                                  self.check_stale,
                                                  self.value_range)
        return self._caches[folder]

    def _cache_for(self, results: dict) -> Optional[PairImageCache]:
        if self.cache_dir is None:
            return None
        folder = self.cache_dir
        if '{data_root}' in folder:
            if results.get('data_root') is None:
                return None  # a sample from no data set: decode it
            folder = resolve_cache_dir(folder, results['data_root'])
        self.cache = self._cache_at(folder)
        return self.cache

    def _read(self, cache: Optional[PairImageCache],
              path: str) -> np.ndarray:
        if cache is not None:
            img = cache.get(path)
            if img is not None:
                return img
        return read_rgb(path, self.backend_args, self.value_range)

    def _count_mismatch(self, results: dict, img1: np.ndarray,
                        img2: np.ndarray) -> None:
        problem = pair_size_mismatch(img1.shape[:2], img2.shape[:2])
        if problem is None:
            return
        self.mismatched_pairs += 1
        count = self.mismatched_pairs
        if count == 10**(len(str(count)) - 1):  # 1, 10, 100...
            print_log(
                f'LoadImagePair: {count} pair(s) so far whose two images '
                f'have very different aspect ratios, e.g. '
                f'{results["img1_path"]} and {results["img2_path"]}: '
                f'{problem}. Each image is resized to the model input size '
                f'on its own, so the scene is stretched differently in the '
                f'two.', logger='current', level=logging.WARNING)

    def transform(self, results: dict) -> dict:
        cache = self._cache_for(results)
        img1 = self._read(cache, results['img1_path'])
        img2 = self._read(cache, results['img2_path'])
        self._count_mismatch(results, img1, img2)
        results['img1'] = img1
        results['img2'] = img2
        results['ori_shape'] = (img1.shape[:2], img2.shape[:2])
        return results

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(cache_dir={self.cache_dir!r}, '
                f'value_range={self.value_range!r})')
