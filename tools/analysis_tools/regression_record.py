"""Record what every model family computes for a fixed seed, or compare.

Builds each family (:data:`mmidc.benchmarks.regression_record.FAMILIES`; the
from-scratch captioner's components come from projects/from_scratch) at a tiny
size with random weights and records its losses, ``'tensor'`` output, greedy
and beam decoding and retrieval scores on a fixed synthetic batch::

    python tools/analysis_tools/regression_record.py work_dirs/record.safetensors
    python tools/analysis_tools/regression_record.py --compare work_dirs/record.safetensors

``--compare FILE`` records again and reports, entry by entry, whether the
new outputs equal the file's bitwise; the exit status is 1 when any differs.
"""
import argparse
import sys

from mmengine.logging import MMLogger

import mmidc  # noqa: F401  (makes `projects` importable)
import projects.from_scratch  # noqa: F401  (the from-scratch captioner's parts)
from mmidc.benchmarks.regression_record import (FAMILIES, compare, load_record,
                                                record, save_record)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('out', nargs='?', help='the record to write (.safetensors)')
    parser.add_argument('--compare', metavar='FILE',
                        help='compare a new record with FILE instead')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--families', nargs='+', choices=sorted(FAMILIES),
                        help='record only these (default: all)')
    args = parser.parse_args(argv)
    if bool(args.out) == bool(args.compare):
        parser.error('give either an output file or --compare FILE')
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    MMLogger.get_current_instance().setLevel('WARNING')  # build messages
    old = load_record(args.compare) if args.compare else None
    new = record(args.seed, args.families)
    if old is None:
        save_record(*new, args.out)
        print(f'{len(new[0])} tensors of {len(args.families or FAMILIES)} '
              f'families written to {args.out}')
        return 0
    if args.families:  # compare only the families recorded
        old = tuple({k: v for k, v in part.items()
                     if k.split('/', 1)[0] in args.families} for part in old)
    report = compare(old, new)
    differ = [(k, v) for k, v in report if v != 'equal']
    for key, verdict in differ:
        print(f'DIFFERENT {key}: {verdict}')
    print(f'{len(report) - len(differ)} of {len(report)} entries bitwise '
          f'equal to {args.compare}')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
