"""Measure data-loader throughput (pairs/s): from PNGs vs from the cache.

Runs the full pipeline (LoadImagePair -> ResizePair -> TokenizeCaptions ->
PackIDCInputs) through a torch DataLoader, once decoding the original
images and once reading the pre-resized cache, for each ``--workers``::

    python -m mmidc_lab.loader_speed data/clevr_change \
        --split train --size 224 224 --workers 0 2 --build-cache \
        --out work_dirs/loader_speed.json

The first batch (worker start-up) is timed apart from the rest.
"""
import argparse
import json
import os
import os.path as osp
import sys

import torch
from mmengine.registry import init_default_scope

from mmidc_lab.benchmarks import loader_speed
from mmidc.datasets import default_cache_dir


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


def main(argv=None):
    args = parse_args(argv)
    init_default_scope('mmidc')
    torch.set_num_threads(1)
    cache_dir = args.cache_dir or default_cache_dir(args.data_root, args.size)
    data = (args.dataset_type, args.data_root, args.split, args.size)
    if 'cache' in args.sources and args.build_cache:
        seconds = loader_speed.ensure_cache(
            *data, cache_dir, max(args.workers + [1]), args.num_pairs)
        if seconds is not None:
            print(f'cache built in {seconds:.1f} s')
    rows = loader_speed.measure_sources(
        *data, args.workers, args.batch_size, cache_dir, args.sources,
        args.num_pairs)
    print('\n' + loader_speed.format_table(rows))
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(dict(data_root=args.data_root, split=args.split,
                       size=args.size, batch_size=args.batch_size,
                       cpu_count=os.cpu_count(), rows=rows), f, indent=2)
    print(f'written {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
