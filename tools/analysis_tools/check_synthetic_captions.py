"""Are a model's captions of the synthetic set true of its scene graphs?

CIDEr rewards n-grams shared with the references; this asks the synthetic
generator's caption checker whether each predicted caption is *true*: a known
sentence form of the right change type, a referring expression that picks out
exactly the changed object (size, colour, material, shape, relations) and, for
colour and material changes, the right new value. No-change pairs are right
with a no-change sentence. Prints, per change type, the share of entirely true
captions and of each partial check (right type, right object, right value),
the same numbers as ``CaptionTruthMetric`` logs, and a few false captions with
what is wrong.

Example::

    python tools/analysis_tools/check_synthetic_captions.py \\
        work_dirs/quickstart/test/predictions_20260101_120000.json \\
        --data-root data/synthetic_clevr_change
"""
import argparse
import json
import sys

from mmidc.evaluation.metrics.caption_truth import (format_truth_table,
                                                    grade_records,
                                                    subset_sizes, truth_scores)


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


def main(argv=None):
    """Print the table and examples; returns the scores (``truth_scores``'
    keys, x100)."""
    args = parse_args(argv)
    with open(args.predictions) as f:
        records = json.load(f)
    verdicts = grade_records(records, args.data_root)
    scores = truth_scores(records, verdicts)
    print(f'Caption truth of {args.predictions} (% of captions):')
    print(format_truth_table(scores, subset_sizes(records)))
    shown = {}
    for record, verdict in zip(records, verdicts):
        kind = record['change_type']
        if verdict.problems and shown.get(kind, 0) < args.show:
            shown[kind] = shown.get(kind, 0) + 1
            print(f'[{kind}] {record["pair_id"]}: '
                  + '; '.join(verdict.problems))
    return scores


if __name__ == '__main__':
    sys.exit(0 if main() else 1)
