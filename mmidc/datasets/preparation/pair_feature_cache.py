"""A cache of image grid features: one float16 memmap per shard plus a JSON
index, written by ``tools/dataset_converters/extract_pair_features.py`` and
read by ``LoadPairFeatures``.

IDC-PCL was published on pre-extracted CNN grid features. With a frozen
backbone the features of an image never change, so they can be computed
once. Layout of ``<cache_dir>/<shard>.json``::

    {"format": "mmidc-feature-cache-v1", "shape": [h, w, C],
     "array": "<shard>.npy", "root": "..",   # data root, relative
     "images": ["images/a.png", ...],         # relative to root, row order
     "source": "<what computed them>"}

and ``<shard>.npy`` holds ``[N, h, w, C]`` float16. The index is written
last, so an interrupted shard is ignored.
"""
import json
import os
import os.path as osp
from typing import Dict, Optional, Sequence

import numpy as np

__all__ = ['PairFeatureCache', 'write_feature_shard', 'FEATURE_CACHE_FORMAT']

FEATURE_CACHE_FORMAT = 'mmidc-feature-cache-v1'


class PairFeatureCache:
    """Look up the cached grid features of an image path.

    Shards are opened lazily (again in each data loader worker: the memmaps
    are not pickled).

    Args:
        cache_dir (str): Folder of ``<shard>.npy`` / ``<shard>.json``.
    """

    def __init__(self, cache_dir: str):
        self.cache_dir = cache_dir
        self._rows: Optional[Dict[str, tuple]] = None
        self.shape = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_rows'] = None
        return state

    def _open(self) -> Dict[str, tuple]:
        if not osp.isdir(self.cache_dir):
            raise FileNotFoundError(
                f'feature cache folder not found: {self.cache_dir} (write it '
                'with tools/dataset_converters/extract_pair_features.py)')
        rows = {}
        for name in sorted(os.listdir(self.cache_dir)):
            if not name.endswith('.json'):
                continue
            path = osp.join(self.cache_dir, name)
            with open(path) as f:
                index = json.load(f)
            if index.get('format') != FEATURE_CACHE_FORMAT:
                continue
            if self.shape is not None and tuple(index['shape']) != self.shape:
                raise ValueError(f'{path}: features of shape {index["shape"]}, '
                                 f'other shards of {self.cache_dir} have '
                                 f'{list(self.shape)}')
            self.shape = tuple(index['shape'])
            array = np.load(osp.join(self.cache_dir, index['array']),
                            mmap_mode='r')
            root = osp.abspath(osp.join(self.cache_dir, index['root']))
            for row, rel in enumerate(index['images']):
                rows[osp.normpath(osp.join(root, rel))] = (array, row)
        if not rows:
            raise FileNotFoundError(f'{self.cache_dir}: no feature cache '
                                    f'shard ({FEATURE_CACHE_FORMAT}) in it')
        return rows

    def get(self, path: str) -> np.ndarray:
        """The ``[h, w, C]`` float32 features of the image ``path``."""
        if self._rows is None:
            self._rows = self._open()
        hit = self._rows.get(osp.abspath(path))
        if hit is None:
            raise KeyError(f'feature cache {self.cache_dir} has no features '
                           f'of {path}: extract them for this split')
        array, row = hit
        return np.asarray(array[row], dtype=np.float32)


def write_feature_shard(cache_dir: str, shard: str, root: str,
                        paths: Sequence[str], features: np.ndarray,
                        source: str) -> str:
    """Write ``features`` ``[N, h, w, C]`` of ``paths`` as one shard; returns
    the index path."""
    os.makedirs(cache_dir, exist_ok=True)
    if features.ndim != 4 or len(features) != len(paths):
        raise ValueError(f'features must be [N={len(paths)}, h, w, C], got '
                         f'{features.shape}')
    array_name = f'{shard}.npy'
    np.save(osp.join(cache_dir, array_name), features.astype(np.float16))
    index = dict(format=FEATURE_CACHE_FORMAT, shape=list(features.shape[1:]),
                 array=array_name,
                 root=osp.relpath(osp.abspath(root), osp.abspath(cache_dir)),
                 images=[osp.relpath(osp.abspath(p), osp.abspath(root))
                         for p in paths],
                 source=source)
    index_path = osp.join(cache_dir, f'{shard}.json')
    tmp = f'{index_path}.tmp{os.getpid()}'
    with open(tmp, 'w') as f:
        json.dump(index, f)
    os.replace(tmp, index_path)
    return index_path
