"""Data-loader throughput (pairs/s): from the PNGs vs from the pre-resized
image cache.

The full pipeline (``LoadImagePair`` -> ``ResizePair`` -> ``TokenizeCaptions``
-> ``PackIDCInputs``) runs through a torch ``DataLoader``, decoding the
original images or reading the cache; the first batch (worker start-up) is
timed apart from the rest.
"""
import os.path as osp
import time
from typing import Dict, List, Optional, Sequence

import torch
from mmengine.logging import print_log

__all__ = ['build_dataset', 'ensure_cache', 'time_loader', 'measure_sources',
           'format_table']

#: The columns of :func:`format_table`.
COLUMNS = ('source', 'workers', 'pairs', 'seconds', 'first_batch_s',
           'pairs_per_s', 'steady_pairs_per_s', 'steady_pairs_per_s_per_core')


def build_dataset(dataset_type: str, data_root: str, split: str,
                  size: Sequence[int], num_pairs: Optional[int] = None,
                  cache_dir: Optional[str] = None):
    """A data set with the loading pipeline at ``size`` (H, W).

    Args:
        dataset_type (str): A registered data set type.
        data_root (str): Its root.
        split (str): The split.
        size (Sequence[int]): ``(H, W)`` of the loaded images.
        num_pairs (int, optional): Only the first N pairs.
        cache_dir (str, optional): Read the images from this cache.
    """
    import mmidc  # noqa: F401  (registers the data sets and transforms)
    from mmidc.registry import DATASETS
    load = dict(type='LoadImagePair')
    if cache_dir:
        load.update(cache_dir=cache_dir, cache_size=tuple(size))
    pipeline = [load, dict(type='ResizePair', size=tuple(size)),
                dict(type='TokenizeCaptions', context_length=32),
                dict(type='PackIDCInputs')]
    return DATASETS.build(
        dict(type=dataset_type, data_root=data_root, split=split,
             pipeline=pipeline, indices=num_pairs))


def ensure_cache(dataset_type: str, data_root: str, split: str,
                 size: Sequence[int], cache_dir: str, workers: int = 1,
                 num_pairs: Optional[int] = None) -> Optional[float]:
    """Build the cache of a split (its first ``num_pairs`` pairs) where its
    index is absent.

    Returns:
        float | None: Seconds it took, None when it was there.
    """
    from mmidc.datasets import build_pair_image_cache
    if osp.exists(osp.join(cache_dir, f'{split}.json')):
        return None
    dataset = build_dataset(dataset_type, data_root, split, size, num_pairs)
    paths = [dataset.get_data_info(i)[k] for i in range(len(dataset))
             for k in ('img1_path', 'img2_path')]
    start = time.perf_counter()
    build_pair_image_cache(paths, data_root, cache_dir, size, split,
                           workers=workers)
    return time.perf_counter() - start


def time_loader(dataset, workers: int, batch_size: int) -> Dict:
    """Iterate once; time the first batch and the rest apart. Per core:
    the steady rate over the workers (the main process with 0 workers)."""
    from mmidc.datasets import idc_collate
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=batch_size, num_workers=workers,
        collate_fn=idc_collate, shuffle=False,
        persistent_workers=False)
    start = time.perf_counter()
    first, pairs, first_pairs = None, 0, 0
    for batch in loader:
        pairs += len(batch['inputs'])
        if first is None:
            first = time.perf_counter() - start
            first_pairs = pairs
    total = time.perf_counter() - start
    rest = total - first
    return dict(
        workers=workers, pairs=pairs, seconds=round(total, 3),
        first_batch_s=round(first, 3),
        pairs_per_s=round(pairs / total, 1),
        steady_pairs_per_s=round((pairs - first_pairs) / rest, 1)
        if rest > 0 and pairs > first_pairs else None)


def measure_sources(dataset_type: str, data_root: str, split: str,
                    size: Sequence[int], workers: Sequence[int],
                    batch_size: int, cache_dir: str,
                    sources: Sequence[str] = ('png', 'cache'),
                    num_pairs: Optional[int] = None) -> List[Dict]:
    """A row of :func:`time_loader` per source and number of workers, with
    the steady rate per core."""
    rows = []
    for source in sources:
        dataset = build_dataset(dataset_type, data_root, split, size,
                                num_pairs,
                                cache_dir if source == 'cache' else None)
        for n in workers:
            row = dict(source=source, **time_loader(dataset, n, batch_size))
            row['steady_pairs_per_s_per_core'] = round(
                (row['steady_pairs_per_s'] or 0) / max(1, n), 1)
            rows.append(row)
            print_log(f'{source:>5} workers={n}: {row["pairs_per_s"]} '
                      'pairs/s', logger='current')
    return rows


def format_table(rows: Sequence[Dict]) -> str:
    """The rows as a markdown table of :data:`COLUMNS`."""
    lines = ['| ' + ' | '.join(COLUMNS) + ' |', '|' + '---|' * len(COLUMNS)]
    lines += ['| ' + ' | '.join(str(row[k]) for k in COLUMNS) + ' |'
              for row in rows]
    return '\n'.join(lines)
