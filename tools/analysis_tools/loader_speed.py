"""Measure data-loader throughput (pairs/s): from PNGs vs from the cache.

Runs the full pipeline (LoadImagePair -> ResizePair -> TokenizeCaptions ->
PackIDCInputs) through a torch DataLoader, once decoding the original
images and once reading the pre-resized cache, for each ``--workers``::

    python tools/analysis_tools/loader_speed.py data/clevr_change \
        --split train --size 224 224 --workers 0 2 --build-cache \
        --out work_dirs/loader_speed.json

The first batch (worker start-up) is timed apart from the rest.
"""
import argparse
import json
import os
import os.path as osp
import sys
import time

import torch
from mmengine.registry import init_default_scope

import mmidc  # noqa: F401  (registers the data sets and transforms)
from mmidc.datasets import build_pair_image_cache, default_cache_dir, idc_collate
from mmidc.registry import DATASETS


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Data-loader throughput')
    parser.add_argument('data_root', help='data set root')
    parser.add_argument('--dataset-type', default='CLEVRChangeDataset')
    parser.add_argument('--split', default='train')
    parser.add_argument('--size', nargs=2, type=int, default=[224, 224],
                        metavar=('H', 'W'))
    parser.add_argument('--workers', nargs='+', type=int, default=[0, 2],
                        help='DataLoader num_workers values to try')
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--num-pairs', type=int, default=None,
                        help='only the first N pairs')
    parser.add_argument('--cache-dir', help='default: '
                        '<data_root>/cache_<H>x<W>')
    parser.add_argument('--build-cache', action='store_true',
                        help='build the cache first (if it is absent)')
    parser.add_argument('--sources', nargs='+', default=['png', 'cache'],
                        choices=['png', 'cache'])
    parser.add_argument('--out', default='work_dirs/loader_speed.json',
                        help='JSON file for the results')
    return parser.parse_args(argv)


def build_dataset(args, cache_dir=None):
    load = dict(type='LoadImagePair')
    if cache_dir:
        load.update(cache_dir=cache_dir, cache_size=tuple(args.size))
    pipeline = [load, dict(type='ResizePair', size=tuple(args.size)),
                dict(type='TokenizeCaptions', context_length=32),
                dict(type='PackIDCInputs')]
    return DATASETS.build(
        dict(type=args.dataset_type, data_root=args.data_root,
             split=args.split, pipeline=pipeline, indices=args.num_pairs))


def time_loader(dataset, workers: int, batch_size: int) -> dict:
    """Iterate once; time the first batch and the rest apart. Per core:
    the steady rate over the workers (the main process with 0 workers)."""
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


def main(argv=None):
    args = parse_args(argv)
    init_default_scope('mmidc')
    torch.set_num_threads(1)
    cache_dir = args.cache_dir or default_cache_dir(args.data_root,
                                                    args.size)
    if 'cache' in args.sources and args.build_cache:
        index = osp.join(cache_dir, f'{args.split}.json')
        if not osp.exists(index):
            dataset = build_dataset(args)
            paths = [dataset.get_data_info(i)[k] for i in range(len(dataset))
                     for k in ('img1_path', 'img2_path')]
            start = time.perf_counter()
            build_pair_image_cache(paths, args.data_root, cache_dir,
                                   args.size, args.split,
                                   workers=max(args.workers + [1]))
            print(f'cache built in {time.perf_counter() - start:.1f} s')

    rows = []
    for source in args.sources:
        dataset = build_dataset(args, cache_dir if source == 'cache' else None)
        for workers in args.workers:
            row = dict(source=source, **time_loader(dataset, workers,
                                                    args.batch_size))
            row['steady_pairs_per_s_per_core'] = round(
                (row['steady_pairs_per_s'] or 0) / max(1, workers), 1)
            rows.append(row)
            print(f'{source:>5} workers={workers}: {row["pairs_per_s"]} '
                  f'pairs/s', flush=True)

    header = ('source', 'workers', 'pairs', 'seconds', 'first_batch_s',
              'pairs_per_s', 'steady_pairs_per_s', 'steady_pairs_per_s_per_core')
    print('\n| ' + ' | '.join(header) + ' |')
    print('|' + '---|' * len(header))
    for row in rows:
        print('| ' + ' | '.join(str(row[k]) for k in header) + ' |')

    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(dict(data_root=args.data_root, split=args.split,
                       size=args.size, batch_size=args.batch_size,
                       cpu_count=os.cpu_count(), rows=rows), f, indent=2)
    print(f'written {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
