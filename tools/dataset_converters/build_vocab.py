"""Write the caption vocabulary of a training split (the tokens a captioner
predicts), once before training.

From a config: the captions of its training data set, to the file the
config names (its model's ``vocab``, else its ``vocab_file``)::

    python tools/dataset_converters/build_vocab.py CONFIG

or from a data set type and root (to ``<data_root>/caption_vocab_<split>.json``)::

    python tools/dataset_converters/build_vocab.py \\
        --dataset-type CLEVRChangeDataset --data-root data/clevr_change

``--dataset-options key=value ...`` sets the data set's own arguments in
either form, e.g. ``skip_missing_images=True``, or ``ann_file=train.jsonl``
for ``--dataset-type ImagePairDataset``; ``--out`` writes elsewhere.
Only the annotations are read. The synthetic generator writes its sets'
file itself.
"""
import argparse
import sys

from mmengine.config import Config

from mmidc.datasets.preparation.vocab_sources import (
    caption_datasets, config_vocab_file, write_dataset_vocab_file)
from mmidc.runtime.dataset_args import (add_dataset_args, check_dataset_args, check_out_file, check_out_file,
                                        with_dataset_options)
from mmidc.runtime.data_root import apply_data_root
from mmidc.cli import working_dir_on_path


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the caption vocabulary of a training split')
    add_dataset_args(parser, 'config whose training data set to read (and whose '
                     'vocabulary file to write)')
    parser.add_argument('--out', help='output file (default: the file the '
                        'config names, else <data_root>/caption_vocab_<split>.json)')
    args = parser.parse_args(argv)
    check_dataset_args(parser, args)
    check_out_file(parser, args.out)
    return args


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    out = args.out
    if args.config:
        cfg = Config.fromfile(args.config)
        if args.cfg_options:
            cfg.merge_from_dict(args.cfg_options)
        apply_data_root(cfg, cfg_options=args.cfg_options)
        datasets = caption_datasets(cfg)
        out = out or config_vocab_file(cfg)
    else:
        datasets = [dict(type=args.dataset_type, data_root=args.data_root)]
        if args.split:
            datasets[0]['split'] = args.split
    datasets = [with_dataset_options(d, args.dataset_options) for d in datasets]
    try:
        print(f'wrote {write_dataset_vocab_file(datasets, out)}')
    except TypeError as e:  # an argument the data set does not take
        if not args.dataset_options:
            raise
        raise SystemExit(f'{datasets[0]["type"]}: {e} (from --dataset-options '
                         f'{" ".join(args.dataset_options)})') from None


if __name__ == '__main__':
    sys.exit(main())
