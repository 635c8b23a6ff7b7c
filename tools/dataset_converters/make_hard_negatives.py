"""Write the hard negative captions of a training split (IDC-PCL's FDA task).

From a data set type and root::

    python tools/dataset_converters/make_hard_negatives.py \
        --dataset-type CLEVRChangeDataset --data-root data/clevr_change \
        --split train

or from a config (its training data set)::

    python tools/dataset_converters/make_hard_negatives.py CONFIG

``--dataset-options key=value ...`` sets the data set's own arguments in
either form, e.g. ``image_name='{parent}{ext}' skip_missing_images=True``
for a Birds-to-Words download in another layout.

The file goes where the config's ``SampleHardNegatives`` reads it, else
next to the annotations (``hard_negatives_<split>.json`` in the folder of
the data set's annotation file; ``<split>``: the name of that file for a
data set without splits) unless ``--out`` is given:
``{"meta": {...}, "negatives": {caption: {"retrieve": [...], "replace":
[...], "confuse": [...]}}}``. The pre-training pipeline reads it with
``dict(type='SampleHardNegatives', negatives_file=...)``. The same
arguments and ``--seed`` give the same file.
"""
import argparse
import copy
import os.path as osp
import random
import sys
import time

from mmengine.config import Config
from mmengine.registry import init_default_scope
from mmengine.utils import ProgressBar

import mmidc  # noqa: F401  (registers the data sets)
from mmidc.datasets.preparation.hard_negatives import (
    DEFAULT_ROLE_PAIRS, DEFAULT_SYNONYMS, KINDS, HardNegativeGenerator,
    hard_negatives_path, write_hard_negatives)
from mmidc.registry import DATASETS
from mmidc.runtime.dataset_args import (add_dataset_args, check_dataset_args, check_out_file,
                                        with_dataset_options)
from mmidc.runtime.data_root import apply_data_root
from mmidc.cli import working_dir_on_path


def count(text: str) -> int:
    """A number of negatives: an int, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f'expected a count, 0 or more, got {text}')
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the hard negative captions of a training split')
    add_dataset_args(parser, 'config whose train_dataloader data set to use')
    parser.add_argument('--out', help="output file (default: the config's "
                        'SampleHardNegatives negatives_file, else '
                        'hard_negatives_<split>.json next to the annotations)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--num-retrieve', type=count, default=3,
                        help='retrieved negatives per caption')
    parser.add_argument('--num-replace', type=count, default=3,
                        help='word-replaced negatives per caption')
    parser.add_argument('--role-pairs', nargs='*', default=None,
                        metavar='A:B', help='role words swapped by confuse '
                        '(default: animal1:animal2)')
    parser.add_argument('--max-df', type=float, default=0.3)
    parser.add_argument('--min-similarity', type=float, default=0.8)
    parser.add_argument('--backoff-similarity', type=float, default=0.5,
                        help='similarity at which a word with no kin at '
                        '--min-similarity finds its kin (small corpora)')
    parser.add_argument('--synonym-threshold', type=float, default=0.28)
    parser.add_argument('--synonyms', nargs='*', default=None,
                        metavar='WORD,WORD[,...]', help='near-synonym groups '
                        'never swapped for each other, besides those found '
                        '(default: a built-in English list; give none to use '
                        'only those found)')
    parser.add_argument('--replace-words', type=int, default=3,
                        help='most words one replaced negative swaps')
    parser.add_argument('--show', type=int, default=5, help='print this many '
                        'negatives of each kind')
    args = parser.parse_args(argv)
    check_dataset_args(parser, args)
    check_out_file(parser, args.out)
    return args


def build_dataset(args):
    """The data set whose captions to read, and the file the config's
    ``SampleHardNegatives`` reads (None: no config, or no such step)."""
    init_default_scope('mmidc')
    if args.config:
        cfg = Config.fromfile(args.config)
        if args.cfg_options:
            cfg.merge_from_dict(args.cfg_options)
        apply_data_root(cfg, cfg_options=args.cfg_options)
        dataset_cfg = copy.deepcopy(cfg.train_dataloader.dataset)
        while 'dataset' in dataset_cfg or 'datasets' in dataset_cfg:
            if 'dataset' in dataset_cfg:  # wrappers
                dataset_cfg = dataset_cfg['dataset']
            else:  # ConcatDataset: the part that samples hard negatives
                dataset_cfg = next(
                    (d for d in dataset_cfg['datasets'] if any(
                        t.get('type') == 'SampleHardNegatives'
                        for t in d.get('pipeline', []))),
                    dataset_cfg['datasets'][0])
    else:
        dataset_cfg = dict(type=args.dataset_type, data_root=args.data_root)
        if args.split:
            dataset_cfg['split'] = args.split
    dataset_cfg = with_dataset_options(dataset_cfg, args.dataset_options)
    negatives_file = next(
        (t.get('negatives_file') for t in dataset_cfg.get('pipeline') or []
         if str(t.get('type', '')).endswith('SampleHardNegatives')), None)
    dataset_cfg['pipeline'] = []
    try:
        return DATASETS.build(dataset_cfg), negatives_file
    except TypeError as e:  # an argument the data set does not take
        if not args.dataset_options:
            raise
        raise SystemExit(f'{dataset_cfg["type"]}: {e} (from --dataset-options '
                         f'{" ".join(args.dataset_options)})') from None


def role_pairs(values):
    if values is None:
        return DEFAULT_ROLE_PAIRS
    pairs = []
    for value in values:
        a, sep, b = value.partition(':')
        if not sep or not a or not b:
            raise SystemExit(f'--role-pairs: expected A:B, got {value!r}')
        pairs.append((a, b))
    return tuple(pairs)


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    dataset, negatives_file = build_dataset(args)
    captions_by_pair = [dataset.get_data_info(i)['gt_captions']
                        for i in range(len(dataset))]
    out = args.out or negatives_file or hard_negatives_path(dataset)
    t0 = time.time()
    generator = HardNegativeGenerator(
        captions_by_pair, role_pairs=role_pairs(args.role_pairs),
        max_df=args.max_df, min_similarity=args.min_similarity,
        backoff_similarity=args.backoff_similarity,
        synonym_threshold=args.synonym_threshold,
        synonyms=(DEFAULT_SYNONYMS if args.synonyms is None else
                  [g.split(',') for g in args.synonyms]),
        replace_words=args.replace_words, seed=args.seed)
    print(f'{len(generator.captions)} unique captions of {len(dataset)} '
          f'pairs; {len(generator.content)} content words, '
          f'{sum(1 for v in generator.word_classes().values() if v)} with '
          'words of their kind', flush=True)
    bar = ProgressBar(len(generator.captions))
    negatives = generator.generate(args.num_retrieve, args.num_replace,
                                   progress=bar.update)
    bar.file.write('\n')
    counts = write_hard_negatives(out, negatives, dataset, generator,
                                  args.seed)
    print(f'wrote {out} in {time.time() - t0:.0f} s; captions with a '
          + ', '.join(f'{k} negative: {n}' for k, n in counts.items()))
    show(negatives, args.show, args.seed)


def show(negatives, num, seed):
    rng = random.Random(seed)
    for kind in KINDS:
        having = [c for c, v in negatives.items() if v[kind]]
        if not having or num <= 0:
            continue
        print(f'\n{kind}:')
        for caption in rng.sample(having, min(num, len(having))):
            print(f'  {caption}\n    -> {negatives[caption][kind][0]}')


if __name__ == '__main__':
    sys.exit(main())
