"""Write the pre-resized image cache that ``LoadImagePair(cache_dir=...)``
reads (one uint8 memmap + JSON index per split).

From a config (its train / val / test data sets), each at the folder and
size its pipeline's ``LoadImagePair(cache_dir=..., cache_size=...)`` reads
(``--size`` / ``--cache-dir`` override them)::

    python tools/dataset_converters/build_resized_cache.py CONFIG --workers 4

or from a data set type and root::

    python tools/dataset_converters/build_resized_cache.py \
        --dataset-type CLEVRChangeDataset --data-root data/clevr_change \
        --splits train val test --size 224 224 --workers 4

Without a size from the options or the pipeline it is 224x224; the cache
goes to ``<data_root>/cache_<H>x<W>/`` unless ``--cache-dir`` is given or
the pipeline reads that size from another folder. A pipeline that does not
read the cache yet needs::

    dict(type='LoadImagePair', cache_dir='<data_root>/cache_224x224',
         cache_size=(224, 224)),
    dict(type='ResizePair', size=(224, 224)),   # a no-op on cached images
"""
import argparse
import copy
import inspect
import os.path as osp
import sys
import time

from mmengine.config import Config
from mmengine.registry import init_default_scope

import mmidc  # noqa: F401  (registers the data sets)
from mmidc.datasets import build_pair_image_cache
from mmidc.datasets.image_io import parse_value_range
from mmidc.registry import DATASETS
from mmidc.datasets.preparation.pair_image_cache import (
    cache_target, pipeline_image_cache, pipeline_value_range)
from mmidc.runtime.loader_setup import dataset_image_paths, loader_dataset
from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.runtime.data_root import apply_data_root
from mmidc.cli import working_dir_on_path

DATALOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')


def _value_range(text):
    try:
        return parse_value_range(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Build the pre-resized image cache of a data set')
    parser.add_argument('config', nargs='?',
                        help='config whose train/val/test data sets to cache')
    parser.add_argument('--dataset-type', help='registered data set type, '
                        'e.g. CLEVRChangeDataset (instead of a config)')
    parser.add_argument('--data-root', help='data set root (with '
                        '--dataset-type)')
    parser.add_argument('--splits', nargs='+', default=['train', 'val',
                                                        'test'],
                        help='splits to cache (with --dataset-type)')
    parser.add_argument('--size', nargs=2, type=int, metavar=('H', 'W'),
                        help="cached image size (default: the pipeline's "
                        'LoadImagePair cache_size, else 224 224)')
    parser.add_argument('--cache-dir', help="output folder (default: the "
                        "pipeline's LoadImagePair cache_dir at that size, "
                        'else <data_root>/cache_<H>x<W>)')
    parser.add_argument('--workers', type=int, default=4,
                        help='worker processes')
    parser.add_argument('--rebuild', action='store_true',
                        help='rebuild shards that are already current (same '
                        'images, size, source sizes and mtimes)')
    parser.add_argument('--value-range', type=_value_range, default=None,
                        metavar='full|image|percentile|LOW,HIGH',
                        help="how 16-bit and float images map to 8 bits "
                        "(default: the pipeline's LoadImagePair.value_range, "
                        "else 'full'); LoadImagePair reads only a cache of "
                        "its own")
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config settings, key=value')
    args = parser.parse_args(argv)
    if bool(args.config) == bool(args.dataset_type):
        parser.error('give either CONFIG or --dataset-type/--data-root')
    if args.dataset_type and not args.data_root:
        parser.error('--dataset-type needs --data-root')
    if args.size and min(args.size) < 1:
        parser.error(f'--size: H and W must be > 0, got {args.size[0]} '
                     f'{args.size[1]}')
    return args


def dataset_cfgs(args):
    """``(shard name, data set config)`` for every data set to cache."""
    if args.dataset_type:
        reader = DATASETS.get(args.dataset_type)
        if reader and 'split' not in inspect.signature(reader).parameters:
            raise SystemExit(
                f'--dataset-type {args.dataset_type} takes no split (it reads '
                'the one annotation file its ann_file names), so --splits '
                'cannot name its files: build the cache from a config whose '
                'loaders read them (build_resized_cache.py CONFIG)')
        return [(split, dict(type=args.dataset_type, data_root=args.data_root,
                             split=split)) for split in args.splits]
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    apply_data_root(cfg, cfg_options=args.cfg_options)
    found = []
    for key in DATALOADERS:
        loader = cfg.get(key)
        if not loader:
            continue
        dataset = copy.deepcopy(loader_dataset(loader))
        name = dataset.get('split', key.split('_')[0])
        found.append((f'{dataset["type"]}_{name}', dataset))
    if not found:
        raise ValueError(f'{args.config}: no {", ".join(DATALOADERS)} '
                         f'with a dataset')
    return found


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    init_default_scope('mmidc')
    unread = {}  # caches the pipelines do not read yet
    for shard, cfg in dataset_cfgs(args):
        paths, data_root = dataset_image_paths(cfg)
        pipeline = cfg.get('pipeline', [])
        cache_dir, size, source = cache_target(pipeline, data_root, args.size,
                                               args.cache_dir)
        print(f'{shard}: {size[0]}x{size[1]} in {cache_dir} ({source})')
        start = time.time()
        value_range = (args.value_range if args.value_range is not None
                       else pipeline_value_range(pipeline))
        index = build_pair_image_cache(paths, data_root, cache_dir, size,
                                       shard, args.workers,
                                       rebuild=args.rebuild,
                                       value_range=value_range)
        print(f'{shard}: {len(set(paths))} images ready in '
              f'{time.time() - start:.1f} s -> {index}')
        if pipeline_image_cache(pipeline, data_root) != (cache_dir, size):
            unread[osp.abspath(cache_dir), size] = None
    for cache_dir, size in unread:
        print(f'use: dict(type="LoadImagePair", cache_dir="{cache_dir}", '
              f'cache_size={size})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
