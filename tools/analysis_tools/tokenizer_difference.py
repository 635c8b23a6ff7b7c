"""How much the Java-free tokenizer changes the caption scores.

Scores the same predictions twice, with coco-caption's PTB tokenizer (Java)
and with the Python tokenizer of the Java-free mode, and prints both and
their difference per metric (total and per change type)::

    python tools/analysis_tools/tokenizer_difference.py PREDICTIONS.json
    python tools/analysis_tools/tokenizer_difference.py --data-root DIR --split test

``PREDICTIONS.json`` is what ``IDCMetric`` saves. With ``--data-root`` (a
CLEVR-Change-style set) the predictions are made from the set's own captions,
two ways: each pair's first reference scored against the others
(``leave-one-out``: human-like, mostly right), and the first reference of
another pair of the split (``shuffled``: mostly wrong).
"""
import argparse
import json
import random
import sys

from mmengine.registry import init_default_scope

import mmidc  # noqa: F401
from mmidc.evaluation.metrics.caption_scorer import JAVA_FREE_METRICS, CaptionScorer
from mmidc.evaluation.prediction_files import read_metric_records


def dataset_predictions(data_root: str, split: str, seed: int = 0) -> dict:
    """``{'leave-one-out': records, 'shuffled': records}`` from a data set."""
    from mmidc.datasets import CLEVRChangeDataset
    dataset = CLEVRChangeDataset(data_root=data_root, split=split, pipeline=[])
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    infos = [i for i in infos if len(i['gt_captions']) > 1]
    rng = random.Random(seed)
    others = [i['gt_captions'][0] for i in infos]
    rng.shuffle(others)

    def record(info, prediction, references):
        return dict(pair_id=info['pair_id'], change_type=info['change_type'],
                    prediction=prediction, references=references)
    return {
        'leave-one-out': [record(i, i['gt_captions'][0], i['gt_captions'][1:])
                          for i in infos],
        'shuffled': [record(i, other, i['gt_captions'][1:])
                     for i, other in zip(infos, others)],
    }


def read_records(path: str) -> list:
    """The records of an ``IDCMetric`` predictions file, or a ``ValueError``
    naming the file, the form read and what scores the other forms."""
    return read_metric_records(
        path, ('pair_id', 'change_type', 'prediction', 'references'),
        'score another form (JSON Lines, coco-caption results) with '
        'references twice with tools/analysis_tools/eval_captions.py, '
        '--tokenizer ptb and --tokenizer python')


def compare(records: list, metrics=None, per_type: bool = True) -> list:
    """Rows ``{metric, ptb, python, difference}``."""
    metrics = metrics or JAVA_FREE_METRICS
    ptb = CaptionScorer(metrics, tokenizer='ptb').score(records, per_type)
    python = CaptionScorer(metrics, tokenizer='python').score(records, per_type)
    return [dict(metric=key, ptb=ptb[key], python=python[key],
                 difference=python[key] - ptb[key]) for key in ptb]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('predictions', nargs='?', help='predictions JSON of IDCMetric')
    parser.add_argument('--data-root', help='make predictions from this set instead')
    parser.add_argument('--split', default='test')
    parser.add_argument('--metrics', nargs='+', default=None,
                        help='default: BLEU, ROUGE-L, CIDEr (METEOR tokenises '
                        'with its own Java code either way)')
    parser.add_argument('--out', help='write the rows to this JSON file')
    args = parser.parse_args(argv)
    if bool(args.predictions) == bool(args.data_root):
        parser.error('give PREDICTIONS.json or --data-root')
    init_default_scope('mmidc')
    if args.predictions:
        sets = {args.predictions: read_records(args.predictions)}
    else:
        sets = dataset_predictions(args.data_root, args.split)
    result = {}
    for name, records in sets.items():
        rows = compare(records, args.metrics)
        result[name] = dict(pairs=len(records), rows=rows)
        print(f'\n{name}: {len(records)} pairs (x100)\n')
        print('| metric | PTB (Java) | Python | difference |\n|---|---|---|---|')
        for row in rows:
            print(f'| {row["metric"]} | {row["ptb"]:.4f} | {row["python"]:.4f} | '
                  f'{row["difference"]:+.4f} |')
        largest = max(abs(r['difference']) for r in rows)
        print(f'\nlargest absolute difference: {largest:.4f}')
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
