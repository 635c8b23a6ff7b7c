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

from mmidc.text.vocab_file import caption_datasets, config_vocab_file, write_vocab_file
from mmidc.utils.cfg_options import CfgOptionsAction


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Write the caption vocabulary of a training split')
    parser.add_argument('config', nargs='?', help='config whose training '
                        'data set to read (and whose vocabulary file to write)')
    parser.add_argument('--dataset-type', help='registered data set type, '
                        'e.g. CLEVRChangeDataset (instead of a config)')
    parser.add_argument('--data-root', help='data set root (with --dataset-type)')
    parser.add_argument('--split', help="split (with --dataset-type; default: "
                        "the data set's, the training split)")
    parser.add_argument('--out', help='output file (default: the file the '
                        'config names, else <data_root>/caption_vocab_<split>.json)')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config settings, key=value')
    parser.add_argument('--dataset-options', nargs='+', action=CfgOptionsAction,
                        default={}, metavar='KEY=VALUE',
                        help="the data set's own arguments, e.g. "
                        'skip_missing_images=True')
    args = parser.parse_args(argv)
    if (args.config is None) == (args.dataset_type is None):
        parser.error('give either a CONFIG or --dataset-type and --data-root')
    if args.dataset_type and not args.data_root:
        parser.error('--dataset-type needs --data-root')
    return args


def main(argv=None):
    args = parse_args(argv)
    out = args.out
    if args.config:
        cfg = Config.fromfile(args.config)
        if args.cfg_options:
            cfg.merge_from_dict(args.cfg_options)
        datasets = caption_datasets(cfg)
        out = out or config_vocab_file(cfg)
    else:
        datasets = [dict(type=args.dataset_type, data_root=args.data_root)]
        if args.split:
            datasets[0]['split'] = args.split
    # dotted keys (data_prefix.img_path=...) as in --cfg-options
    options = Config(dict(datasets=datasets))
    for i in range(len(datasets)):
        options.merge_from_dict({f'datasets.{i}.{key}': value for key, value
                                 in args.dataset_options.items()})
    print(f'wrote {write_vocab_file(options.to_dict()["datasets"], out)}')


if __name__ == '__main__':
    sys.exit(main())
