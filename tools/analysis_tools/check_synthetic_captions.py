"""Are a model's captions of the synthetic set true of its scene graphs?

CIDEr rewards n-grams shared with the references; this asks the synthetic
generator's caption checker (:mod:`mmidc.datasets.synthetic.caption_checker`)
whether each predicted caption is *true*: a known sentence form of the right
change type, a referring expression that picks out exactly the changed object
(size, colour, material, shape, relations) and, for colour and material
changes, the right new value. No-change pairs are right with a no-change
sentence. Prints, per change type, the share of true captions and of captions
of the right change type, and a few false ones with what is wrong.

Example::

    python tools/analysis_tools/check_synthetic_captions.py \\
        work_dirs/quickstart/test/predictions_20260101_120000.json \\
        --data-root data/synthetic_clevr_change
"""
import argparse
import json
import os.path as osp
import sys
from collections import defaultdict

from mmidc.datasets.synthetic import check_change_caption
from mmidc.datasets.synthetic.caption_checker import (check_no_change_caption,
                                                      scene_graph_file)

TYPE_PROBLEMS = ('no known sentence form', 'sentence form of')
ROW_ORDER = ('color', 'material', 'add', 'drop', 'move', 'none')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Check predicted captions against the synthetic scene '
        'graphs')
    parser.add_argument('predictions', help='predictions JSON from IDCMetric')
    parser.add_argument('--data-root', default='data/synthetic_clevr_change',
                        help='the generated data set (its scenes/*.json)')
    parser.add_argument('--show', type=int, default=3,
                        help='false captions to print per change type')
    return parser.parse_args(argv)


def check_predictions(records, data_root):
    """Per change type: ``{'pairs', 'true', 'right_type', 'false'}`` with
    ``false`` a list of ``(pair_id, problems)``."""
    stats = defaultdict(lambda: dict(pairs=0, true=0, right_type=0, false=[]))
    for record in records:
        change_type, caption = record['change_type'], record['prediction']
        if change_type == 'none':
            problems = check_no_change_caption(caption)
            right_type = not problems
        else:
            path = scene_graph_file(data_root, record['pair_id'])
            if not osp.isfile(path):
                raise FileNotFoundError(
                    f'{path}: no scene graph for pair {record["pair_id"]!r}; '
                    '--data-root must be the synthetic set the predictions '
                    'are of')
            with open(path) as f:
                problems = check_change_caption(caption, json.load(f))
            right_type = not any(key in p for p in problems
                                 for key in TYPE_PROBLEMS)
        entry = stats[change_type]
        entry['pairs'] += 1
        entry['true'] += not problems
        entry['right_type'] += right_type
        if problems:
            entry['false'].append((record['pair_id'], problems))
    return dict(stats)


def main(argv=None):
    args = parse_args(argv)
    with open(args.predictions) as f:
        records = json.load(f)
    stats = check_predictions(records, args.data_root)
    order = [t for t in ROW_ORDER if t in stats] + sorted(
        set(stats) - set(ROW_ORDER))
    total = {k: sum(entry[k] for entry in stats.values())
             for k in ('pairs', 'true', 'right_type')}
    print(f'{"type":10s} {"pairs":>5s} {"true":>6s} {"right type":>10s}')
    for name, entry in [(t, stats[t]) for t in order] + [('total', total)]:
        print(f'{name:10s} {entry["pairs"]:5d} '
              f'{entry["true"] / entry["pairs"]:6.1%} '
              f'{entry["right_type"] / entry["pairs"]:10.1%}')
    for name in order:
        for pair_id, problems in stats[name]['false'][:args.show]:
            print(f'[{name}] {pair_id}: ' + '; '.join(problems))
    return stats


if __name__ == '__main__':
    sys.exit(0 if main() else 1)
