"""The loader settings that depend on the machine (the data-set bases'
``num_workers='auto'`` and ``pin_memory='auto'``:
:func:`resolve_loader_defaults`), and the switch to the pre-resized image
cache (``tools/train.py --image-cache``: :func:`use_image_cache`).
"""
import copy
import os
import os.path as osp
import time
from typing import List, Optional, Sequence, Tuple

from mmengine.logging import print_log

from mmidc.datasets.image_io import to_hw
from mmidc.datasets.preparation.pair_image_cache import (
    build_pair_image_cache, default_cache_dir, pipeline_value_range,
    shard_is_current, step_type_name)
from .data_root import LOADERS
#: Most worker processes ``num_workers='auto'`` starts per training process.
MAX_AUTO_WORKERS = 16


def available_cores() -> int:
    """CPU cores this process may run on (its affinity, else the count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_num_workers(local_world_size: Optional[int] = None) -> int:
    """Loader workers per training process: this machine's cores shared by
    its training processes (``LOCAL_WORLD_SIZE``, set by torchrun), one
    core left to each process itself; at least 1, at most
    :data:`MAX_AUTO_WORKERS`."""
    if local_world_size is None:
        local_world_size = int(os.environ.get('LOCAL_WORLD_SIZE', 1))
    per_process = available_cores() // max(1, local_world_size)
    return max(1, min(MAX_AUTO_WORKERS, per_process - 1))


def _cuda_available() -> bool:
    import torch
    return torch.cuda.is_available()


def auto_pin_memory() -> bool:
    """Pinned loader memory when CUDA is available (pinned batches cross to
    the GPU asynchronously), not otherwise."""
    return _cuda_available()


def resolve_loader_defaults(cfg) -> None:
    """Replace ``'auto'`` loader settings of ``cfg`` in place.

    - ``num_workers='auto'``: :func:`auto_num_workers`.
    - ``pin_memory='auto'``: :func:`auto_pin_memory`.
    - ``persistent_workers`` is switched off for a loader with no workers
      (PyTorch refuses the combination).
    """
    for key in LOADERS:
        loader = cfg.get(key)
        if not loader:
            continue
        if loader.get('num_workers') == 'auto':
            loader['num_workers'] = auto_num_workers()
        if loader.get('pin_memory') == 'auto':
            loader['pin_memory'] = auto_pin_memory()
        if loader.get('num_workers', 0) == 0 and loader.get('persistent_workers'):
            loader['persistent_workers'] = False


def loader_dataset(loader: dict) -> dict:
    """The innermost dataset config of a loader (wrappers unwrapped)."""
    dataset = loader['dataset']
    while 'dataset' in dataset:  # RepeatDataset, ConcatDataset-likes
        dataset = dataset['dataset']
    return dataset


def cached_pipeline_size(pipeline: list) -> Optional[Tuple[int, int]]:
    """``(H, W)`` of the ``ResizePair`` right after ``LoadImagePair``, the
    size a cache must hold; None when the pipeline cannot read a cache
    (no ``LoadImagePair``, or a random crop of the full image first)."""
    names = [step_type_name(step) for step in pipeline]
    if 'LoadImagePair' not in names:
        return None
    after = names.index('LoadImagePair') + 1
    if after < len(names) and names[after] == 'ResizePair':
        return to_hw(pipeline[after]['size'], 'ResizePair.size')
    return None


def dataset_image_paths(dataset_cfg: dict) -> Tuple[List[str], str]:
    """Every image path of a data set config (built without a pipeline, its
    entries kept as a list) and its ``data_root``."""
    from mmidc.registry import DATASETS
    cfg = copy.deepcopy(dict(dataset_cfg))
    cfg.update(pipeline=[], lazy_init=False, serialize_data=False)
    dataset = DATASETS.build(cfg)
    paths = [entry[key] for entry in dataset.data_list
             for key in ('img1_path', 'img2_path')]
    return paths, dataset.data_root


def use_image_cache(cfg,
                    cache_dir: Optional[str] = None,
                    workers: Optional[int] = None,
                    build: bool = True,
                    loaders: Sequence[str] = LOADERS,
                    wait_timeout: float = 6 * 3600.) -> List[Tuple[str, str]]:
    """Read every loader's images from the pre-resized cache.

    For each of ``loaders`` (default: ``train/val/test_dataloader``) whose
    pipeline starts with ``LoadImagePair`` followed by ``ResizePair(size)``:
    the cache of that size (``<data_root>/cache_<H>x<W>`` unless
    ``cache_dir``) is built for the loader's split if it is missing or
    stale, and the ``LoadImagePair`` step is given its ``cache_dir`` /
    ``cache_size``. The cached pixels are the ones ``ResizePair`` computes.
    A pipeline that crops before resizing cannot use a cache of the output
    size and is left as it is (logged).

    Under torchrun, local rank 0 builds and the other processes of the
    machine wait for it (several machines on one shared file system: build
    the cache beforehand with ``tools/dataset_converters/
    build_resized_cache.py``).

    Args:
        cfg (Config): The config, changed in place.
        cache_dir (str, optional): One cache folder for all loaders.
        workers (int, optional): Processes that build the cache. Defaults
            to the available cores.
        build (bool): Build missing shards (False: only switch the loaders
            whose cache is current). Defaults to True.
        loaders (Sequence[str]): The loaders to switch.
        wait_timeout (float): Seconds a non-zero local rank waits for rank
            0's build.

    Returns:
        list[tuple[str, str]]: ``(loader key, cache folder)`` of each loader
        switched.
    """
    workers = workers or available_cores()
    local_rank = int(os.environ.get('LOCAL_RANK', 0))
    switched = []
    for key in loaders:
        loader = cfg.get(key)
        if not loader or 'dataset' not in loader:
            continue
        dataset = loader_dataset(loader)
        pipeline = list(dataset.get('pipeline', []))
        size = cached_pipeline_size(pipeline)
        if size is None:
            print_log(f'--image-cache: the {key} pipeline does not start with '
                      f'LoadImagePair + ResizePair; it decodes the images',
                      logger='current', level=30)
            continue
        paths, data_root = dataset_image_paths(dataset)
        folder = cache_dir or default_cache_dir(data_root, size)
        shard = f'{step_type_name(dataset)}_{dataset.get("split", key.split("_")[0])}'
        value_range = pipeline_value_range(pipeline)  # the cache keys on it
        if not shard_is_current(paths, data_root, folder, size, shard,
                                value_range):
            if not build:
                continue
            if local_rank == 0:
                build_pair_image_cache(paths, data_root, folder, size, shard,
                                       workers=workers,
                                       value_range=value_range)
            else:
                _wait_for(paths, data_root, folder, size, shard, wait_timeout,
                          value_range)
        step = [step_type_name(s) for s in pipeline].index('LoadImagePair')
        load = dict(pipeline[step])
        load.update(cache_dir=folder, cache_size=size)
        pipeline[step] = load
        dataset['pipeline'] = pipeline
        switched.append((key, folder))
        print_log(f'{key}: images from the cache {folder} ({size[0]}x{size[1]})',
                  logger='current')
    return switched


def _wait_for(paths, data_root, folder, size, shard, timeout,
              value_range='full') -> None:
    start = time.time()
    print_log(f'waiting for local rank 0 to build {folder}/{shard}',
              logger='current')
    while not shard_is_current(paths, data_root, folder, size, shard,
                               value_range):
        if time.time() - start > timeout:
            raise TimeoutError(f'the image cache {osp.join(folder, shard)} was '
                               f'not built within {timeout:.0f} s')
        time.sleep(5)
