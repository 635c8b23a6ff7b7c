"""Are a model's captions of the synthetic set true of its scene graphs?

CIDEr rewards n-grams shared with the references; this asks the synthetic
generator's caption checker whether each predicted caption is *true*: a known
sentence form of the right change type, a referring expression that picks out
exactly the changed object (size, colour, material, shape, relations) and, for
colour and material changes, the right new value. No-change pairs are right
with a no-change sentence. Prints, per change type, the share of entirely true
captions and of each partial check (right type, right object, right value),
the same numbers as ``CaptionTruthMetric`` logs, and a few false captions with
what is wrong. For colour and material changes it also counts what the
caption's last word is: a colour or material the caption had already named
(a material by any of its words: "the matte cube turned rubber"), another
one, or neither.

Example::

    python tools/analysis_tools/check_synthetic_captions.py \\
        work_dirs/quickstart/test/predictions_20260101_120000.json \\
        --data-root data/synthetic_clevr_change
"""
import argparse
import json
import sys
from collections import Counter

from mmidc.evaluation.metrics.caption_truth import (format_truth_table,
                                                    grade_records,
                                                    subset_sizes, truth_scores)
from mmidc.synthetic.properties import WORD_TO_COLOR, WORD_TO_MATERIAL

#: word -> (attribute, value) for the words a new value is named by
VALUE_WORDS = {**{w: ('colour', v) for w, v in WORD_TO_COLOR.items()},
               **{w: ('material', v) for w, v in WORD_TO_MATERIAL.items()}}
ENDINGS = ('colour named before', 'another colour', 'material named before',
           'another material', 'neither')


def last_value_word(caption: str) -> str:
    """What the caption's last word names: one of :data:`ENDINGS`."""
    words = caption.split()
    if not words or words[-1] not in VALUE_WORDS:
        return 'neither'
    attribute, value = VALUE_WORDS[words[-1]]
    before = {VALUE_WORDS[w] for w in words[:-1] if w in VALUE_WORDS}
    if (attribute, value) in before:
        return f'{attribute} named before'
    return f'another {attribute}'


def value_word_table(records: list) -> str:
    """Per colour / material change: how many captions end on each of
    :data:`ENDINGS`."""
    rows = ['subset    pairs  ' + '  '.join(ENDINGS)]
    for kind in ('color', 'material'):
        ends = Counter(last_value_word(r['prediction']) for r in records
                       if r['change_type'] == kind)
        rows.append(f'{kind:<8} {sum(ends.values()):>6}  ' + '  '.join(
            f'{ends[e]:>{len(e)}}' for e in ENDINGS))
    return '\n'.join(rows)


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
    print('The last word of colour and material change captions (captions):')
    print(value_word_table(records))
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
