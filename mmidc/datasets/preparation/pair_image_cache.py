"""A pre-resized image cache: one uint8 memmap per shard plus a JSON index.

Decoding 480x320 PNGs every step is the main cost of the data loader. The
cache stores every image of a data set already resized (with the same
``resize_rgb`` the pipeline uses, so pixels are identical) in
``<cache_dir>/<shard>.npy``, an array ``[N, H, W, 3]`` read by memory
mapping, and ``<cache_dir>/<shard>.json``::

    {"format": "mmidc-image-cache-v2", "size": [H, W], "array": "<shard>.npy",
     "root": "..",                  # data root, relative to the cache folder
     "images": ["images/a.png", ...],     # relative to root, row order
     "stats": [[bytes, mtime_ns], ...],   # of each source at build time
     "value_range": "full"}         # how 16-bit/float images map to 8 bits

The images are stored upright (their EXIF orientation applied, as
``read_rgb`` decodes them; shards of the older ``mmidc-image-cache-v1``
format, written without it, are not read) and as the shard's
``value_range`` maps them to 8 bits (an index without the key: ``'full'``);
``LoadImagePair`` reads only shards of its own policy. The index is written
last, so an interrupted build leaves no shard. A damaged shard (an index
that does not parse, an array cut short or of another shape than its index
says), or one of another format or policy, is named in a warning and not
read: its images are decoded from the originals, and a build
(``build_pair_image_cache``, ``use_image_cache``) rebuilds it.
"""
import contextlib
import json
import multiprocessing
import os
import os.path as osp
import uuid
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from mmengine.logging import print_log
from mmengine.utils import ProgressBar

from ..image_io import (ValueRange, check_value_range, read_rgb, resize_rgb,
                       to_hw, value_range_key)

FORMAT = 'mmidc-image-cache-v2'
#: The prefix of every version's format name.
FORMAT_PREFIX = 'mmidc-image-cache-'
#: ``(H, W)`` of a cache when nothing names one.
DEFAULT_CACHE_SIZE = (224, 224)


def default_cache_dir(data_root: str, size: Sequence[int]) -> str:
    """``<data_root>/cache_<H>x<W>``."""
    height, width = to_hw(size, 'cache size')
    return osp.join(data_root, f'cache_{height}x{width}')


def resolve_cache_dir(cache_dir: str, data_root: str) -> str:
    """``cache_dir`` with ``{data_root}`` standing for ``data_root``, as
    ``LoadImagePair`` reads it for a sample of a data set at ``data_root``."""
    return cache_dir.replace('{data_root}', data_root)


def step_type_name(step: dict) -> str:
    """The class name a config step's ``type`` names (a registered name,
    a dotted path or the class itself)."""
    type_ = step.get('type', '')
    name = type_ if isinstance(type_, str) else type_.__name__
    return name.split('.')[-1]


def pipeline_image_cache(
        pipeline: Sequence[dict],
        data_root: str) -> Optional[Tuple[str, Tuple[int, int]]]:
    """The folder and ``(H, W)`` of the cache that a pipeline's
    ``LoadImagePair`` reads for a data set at ``data_root``; None when it
    reads none."""
    for step in pipeline:
        if step_type_name(step) == 'LoadImagePair' and step.get('cache_dir'):
            return (resolve_cache_dir(step['cache_dir'], data_root),
                    to_hw(step['cache_size'], 'LoadImagePair.cache_size'))
    return None


def pipeline_value_range(pipeline: Sequence[dict]) -> ValueRange:
    """The ``value_range`` of a pipeline's ``LoadImagePair`` (checked);
    ``'full'`` when it sets none, or has no such step."""
    for step in pipeline:
        if step_type_name(step) == 'LoadImagePair':
            return check_value_range(step.get('value_range', 'full'),
                                     'LoadImagePair.value_range')
    return 'full'


def cache_target(pipeline: Sequence[dict],
                 data_root: str,
                 size: Optional[Sequence[int]] = None,
                 cache_dir: Optional[str] = None
                 ) -> Tuple[str, Tuple[int, int], str]:
    """Where and at what size to cache a data set's images.

    ``size`` and ``cache_dir`` win. What they leave open is the cache that
    the data set's ``pipeline`` reads (:func:`pipeline_image_cache`; its
    folder only at its own size), else :data:`DEFAULT_CACHE_SIZE` in
    :func:`default_cache_dir`.

    Args:
        pipeline (Sequence[dict]): The data set's pipeline configs.
        data_root (str): The data set's root.
        size (Sequence[int], optional): ``(H, W)`` asked for.
        cache_dir (str, optional): Folder asked for.

    Returns:
        tuple: The folder, ``(H, W)`` and a note of where each comes from.
    """
    read = pipeline_image_cache(pipeline, data_root)
    if size is not None:
        size, size_from = to_hw(size, 'size'), 'size given'
    elif read is not None:
        size, size_from = read[1], "size of the pipeline's LoadImagePair"
    else:
        size, size_from = DEFAULT_CACHE_SIZE, 'default size'
    if cache_dir is not None:
        dir_from = 'folder given'
    elif read is not None and read[1] == size:
        cache_dir, dir_from = read[0], "folder of the pipeline's LoadImagePair"
    else:
        cache_dir = default_cache_dir(data_root, size)
        dir_from = 'default folder'
    return cache_dir, size, f'{size_from}, {dir_from}'


def _file_stat(path: str) -> Tuple[int, int]:
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns


class PairImageCache:
    """Read resized images from the shards of a cache folder.

    Shards are opened lazily (and re-opened in each data loader worker: the
    memmaps are not pickled). :meth:`get` returns None, and logs a warning
    once per reason, when the cache cannot serve an image; the caller then
    decodes the original.

    Args:
        cache_dir (str): Folder holding ``<shard>.npy`` / ``<shard>.json``.
        size (Sequence[int]): ``(H, W)`` of the images wanted; shards of any
            other size are ignored.
        check_stale (bool): Compare each source file's size and mtime with
            the recorded ones (a copy that did not keep mtimes, e.g. plain
            ``cp`` rather than ``cp -a``, reads as stale). Defaults to True.
        value_range (str | Sequence[float]): The policy the images are
            wanted in (:func:`~mmidc.datasets.image_io.to_uint8`); shards
            built with another are not read (a warning). Defaults to
            ``'full'``.
    """

    def __init__(self, cache_dir: str, size: Sequence[int],
                 check_stale: bool = True, value_range: ValueRange = 'full'):
        self.cache_dir = cache_dir
        self.size = to_hw(size, 'cache_size')
        self.check_stale = check_stale
        self.value_range = check_value_range(value_range)
        self._rows: Optional[Dict[str, tuple]] = None
        self._warned = set()

    def __getstate__(self):
        state = self.__dict__.copy()
        state.update(_rows=None, _warned=set())
        return state

    def _warn_once(self, reason: str, message: str, level: int = 30) -> None:
        if reason not in self._warned:
            self._warned.add(reason)
            print_log(f'image cache {self.cache_dir}: {message}; decoding the '
                      f'original images instead (logged once)',
                      logger='current', level=level)

    def _open(self) -> Dict[str, tuple]:
        """Map absolute source paths to ``(array, row, stat)``."""
        rows, named = {}, False  # named: a shard was named in a warning
        names = (sorted(os.listdir(self.cache_dir))
                 if osp.isdir(self.cache_dir) else [])
        # the newest shard last: its rows win where shards share an image
        names.sort(key=lambda name: _mtime(osp.join(self.cache_dir, name)))
        for name in names:
            if not name.endswith('.json'):
                continue
            index_path = osp.join(self.cache_dir, name)
            index, problem = _read_index(index_path)
            if problem is None:
                form = index.get('format')
                if form != FORMAT:
                    if isinstance(form, str) and form.startswith(
                            FORMAT_PREFIX):
                        self._warn_once(
                            index_path, f'{index_path} is of the older format '
                            f'{form!r} (images not turned by their EXIF '
                            f'orientation), not read; rebuild it')
                        named = True
                    continue
                if tuple(index['size']) != self.size:
                    continue
                built = index.get('value_range', 'full')
                if built != value_range_key(self.value_range):
                    self._warn_once(
                        index_path, f'{index_path} was built with '
                        f'value_range {built!r}, the pipeline reads '
                        f'{value_range_key(self.value_range)!r}; not read, '
                        f'rebuild it')
                    named = True
                    continue
                array, problem = _open_array(self.cache_dir, index)
            if problem is not None:
                self._warn_once(index_path, f'damaged shard {index_path}: '
                                f'{problem}; not read, rebuild it (tools/'
                                'dataset_converters/build_resized_cache.py, '
                                'or train with --image-cache)')
                named = True
                continue
            root = osp.abspath(osp.join(self.cache_dir, index['root']))
            for row, (rel, stat) in enumerate(
                    zip(index['images'], index['stats'])):
                rows[osp.normpath(osp.join(root, rel))] = (array, row,
                                                           tuple(stat))
        if not names:  # never built: tell, do not warn
            self._warn_once('absent', 'no such folder (build one with '
                            'tools/dataset_converters/build_resized_cache.py)',
                            level=20)
        elif not rows and not named:
            self._warn_once('absent', f'no cache of size {self.size} found')
        return rows

    def get(self, path: str) -> Optional[np.ndarray]:
        """The cached ``[H, W, 3]`` uint8 image of ``path``, or None."""
        if self._rows is None:
            self._rows = self._open()
        hit = self._rows.get(osp.abspath(path))
        if hit is None:
            if self._rows:
                self._warn_once('missing', f'{path} is not in the cache')
            return None
        array, row, stat = hit
        if self.check_stale:
            try:
                current = _file_stat(path)
            except FileNotFoundError:
                current = stat  # original gone: the cache is all there is
            if current != stat:
                self._warn_once('stale', f'{path} changed since the cache '
                                f'was built (rebuild it)')
                return None
        return np.array(array[row])  # copy: memmaps are read-only


def _fill_rows(task) -> int:
    """Worker: decode, resize and write a chunk of rows into the memmap."""
    array_path, size, start, paths, value_range = task
    array = np.load(array_path, mmap_mode='r+')
    for offset, path in enumerate(paths):
        array[start + offset] = resize_rgb(
            read_rgb(path, value_range=value_range), size)
    array.flush()
    return len(paths)


def _mtime(path: str) -> int:
    """A file's mtime in ns (0 when it is gone)."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


#: The keys of a shard index, with their types.
_INDEX_KEYS = dict(format=str, size=list, array=str, root=str, images=list,
                   stats=list)


def _read_index(index_path: str) -> Tuple[Optional[dict], Optional[str]]:
    """A shard's index and None, or None and what is wrong with it."""
    try:
        with open(index_path) as f:
            index = json.load(f)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        return None, f'the index does not parse ({e})'
    except OSError as e:
        return None, f'the index cannot be read ({e.strerror or e})'
    if not isinstance(index, dict) or not all(
            isinstance(index.get(k), t) for k, t in _INDEX_KEYS.items()):
        return None, (f'the index is not a shard index (keys '
                      f'{sorted(_INDEX_KEYS)})')
    if len(index['images']) != len(index['stats']):
        return None, (f'the index lists {len(index["images"])} images and '
                      f'{len(index["stats"])} stats')
    return index, None


def _open_array(cache_dir: str, index: dict
                ) -> Tuple[Optional[np.ndarray], Optional[str]]:
    """The memmap of a shard's array and None, or None and what is wrong
    with it (missing, cut short, of another shape than its index says)."""
    path = osp.join(cache_dir, index['array'])
    try:
        array = np.load(path, mmap_mode='r')
    except FileNotFoundError:
        return None, f'its array {path} is missing'
    except (OSError, ValueError, EOFError) as e:  # cut short, not an .npy
        return None, f'its array {path} does not load ({e})'
    expected = (len(index['images']), *index['size'], 3)
    if array.dtype != np.uint8 or array.shape != expected:
        return None, (f'its array {path} is {array.dtype} {array.shape}, the '
                      f'index says uint8 {expected}')
    return array, None


def _shard_problem(index_path: str, array_path: str,
                   index: dict) -> Optional[str]:
    """Why the shard on disk is not exactly ``index``'s images at its size
    from sources with the recorded sizes and mtimes (``'absent'``, damaged,
    stale), or None when it is current."""
    if not osp.isfile(index_path):
        return 'absent'
    old, problem = _read_index(index_path)
    if problem is not None:
        return f'damaged: {problem}'
    if not all(old.get(key) == index[key]
               for key in ('format', 'size', 'root', 'images', 'stats')):
        return 'stale (other images, size, format or source files)'
    if old.get('value_range', 'full') != index['value_range']:
        return 'stale (other value_range)'
    _, problem = _open_array(osp.dirname(index_path),
                             dict(old, array=osp.basename(array_path)))
    return None if problem is None else f'damaged: {problem}'


def _shard_index(image_paths: Sequence[str], data_root: str, cache_dir: str,
                 size: Sequence[int], shard: str,
                 value_range: ValueRange = 'full') -> Tuple[dict, List[str]]:
    """The index a current shard of ``image_paths`` holds, and the sorted
    unique absolute paths (its row order)."""
    size = to_hw(size, 'size')
    paths = sorted({osp.abspath(p) for p in image_paths})
    root = osp.abspath(data_root)  # an image elsewhere: '../...' from it
    index = dict(
        format=FORMAT,
        size=list(size),
        array=f'{shard}.npy',
        root=osp.relpath(root, osp.abspath(cache_dir)),
        images=[osp.relpath(p, root) for p in paths],
        stats=[list(_file_stat(p)) for p in paths],
        value_range=value_range_key(value_range))
    return index, paths


def _current_shard(cache_dir: str, index: dict) -> Optional[str]:
    """The index file of a current shard of ``index``'s images in
    ``cache_dir``: the shard ``index`` names, else one of another name
    (``build_resized_cache.py --dataset-type`` names its shards by split,
    its config form and ``--image-cache`` by type and split), or None."""
    own = osp.join(cache_dir, osp.splitext(index['array'])[0] + '.json')
    if _shard_problem(own, osp.join(cache_dir, index['array']), index) is None:
        return own
    names = sorted(os.listdir(cache_dir)) if osp.isdir(cache_dir) else []
    for name in names:
        path = osp.join(cache_dir, name)
        if not name.endswith('.json') or path == own:
            continue
        other, problem = _read_index(path)
        if problem is None and _shard_problem(
                path, osp.join(cache_dir, other['array']), index) is None:
            return path
    return None


def shard_is_current(image_paths: Sequence[str], data_root: str,
                     cache_dir: str, size: Sequence[int], shard: str,
                     value_range: ValueRange = 'full') -> bool:
    """Whether ``<cache_dir>/<shard>`` holds exactly these images at ``size``
    as ``value_range`` maps them, from sources with the sizes and mtimes
    they have now (or another shard of the folder holds them so)."""
    index, _ = _shard_index(image_paths, data_root, cache_dir, size, shard,
                            value_range)
    return _current_shard(cache_dir, index) is not None


def build_pair_image_cache(image_paths: Sequence[str],
                           data_root: str,
                           cache_dir: str,
                           size: Sequence[int],
                           shard: str,
                           workers: int = 4,
                           chunk_size: int = 64,
                           rebuild: bool = False,
                           value_range: ValueRange = 'full') -> str:
    """Write one cache shard for ``image_paths``; return its index path.

    A shard that is already current (same images, size, and source sizes and
    mtimes) is kept unless ``rebuild``, and so is a current shard of these
    images under another name in ``cache_dir`` (its index path is returned).

    Args:
        image_paths (Sequence[str]): Source images (duplicates are stored
            once); those outside ``data_root`` are indexed as ``../...``.
        data_root (str): The data set root the index paths are relative to.
        cache_dir (str): Output folder (created).
        size (Sequence[int]): ``(H, W)`` to resize to.
        shard (str): Shard name, e.g. the split: ``<shard>.npy/.json``.
        workers (int): Worker processes. Defaults to 4.
        chunk_size (int): Images per task. Defaults to 64.
        rebuild (bool): Rebuild even a current shard. Defaults to False.
        value_range (str | Sequence[float]): How 16-bit and float images
            map to 8 bits, as the pipeline's ``LoadImagePair`` reads them
            (:func:`pipeline_value_range`). Defaults to ``'full'``.
    """
    size = to_hw(size, 'size')
    value_range = check_value_range(value_range)
    index, paths = _shard_index(image_paths, data_root, cache_dir, size, shard,
                                value_range)
    os.makedirs(cache_dir, exist_ok=True)
    array_path = osp.join(cache_dir, f'{shard}.npy')
    index_path = osp.join(cache_dir, f'{shard}.json')
    # Unique names: builds of the same shard that run at once (two
    # experiments starting together) each write their own file; the last
    # to finish replaces the shard with the same content.
    tag = uuid.uuid4().hex[:12]
    partial_path = osp.join(cache_dir, f'{shard}.partial-{tag}.npy')
    current = None if rebuild else _current_shard(cache_dir, index)
    if current is not None:
        print_log(f'{osp.splitext(current)[0]}.npy: current ({len(paths)} '
                  f'images at {size[0]}x{size[1]}), kept', logger='current')
        return current
    problem = _shard_problem(index_path, array_path, index)
    if problem is not None and problem.startswith('damaged'):
        print_log(f'image cache shard {index_path} is {problem}; rebuilding '
                  'it', logger='current', level=30)
    # the old shard is invalid from here on (another build may remove it first)
    with contextlib.suppress(FileNotFoundError):
        os.remove(index_path)
    try:
        np.lib.format.open_memmap(
            partial_path, mode='w+', dtype=np.uint8,
            shape=(len(paths), *size, 3)).flush()
        tasks = [(partial_path, size, start, paths[start:start + chunk_size],
                  value_range) for start in range(0, len(paths), chunk_size)]
        print_log(f'caching {len(paths)} images at {size[0]}x{size[1]} into '
                  f'{array_path} with {workers} workers', logger='current')
        progress = ProgressBar(len(paths))
        if workers > 1:
            with multiprocessing.Pool(workers) as pool:
                for done in pool.imap_unordered(_fill_rows, tasks):
                    progress.update(done)
                pool.close()  # workers end by themselves, not by SIGTERM
                pool.join()
        else:
            for task in tasks:
                progress.update(_fill_rows(task))
        progress.file.write('\n')  # ProgressBar leaves the cursor on its line
        os.replace(partial_path, array_path)
    finally:
        if osp.exists(partial_path):  # a failed build leaves nothing behind
            os.remove(partial_path)

    with open(f'{index_path}.{tag}.tmp', 'w') as f:
        json.dump(index, f)
    os.replace(f'{index_path}.{tag}.tmp', index_path)
    return index_path
