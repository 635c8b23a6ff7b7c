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
one, or neither; which value of the changed attribute the caption describes
the object by (before the change, which is right; after it; another; none)
and, for each, what the caption ends on (the new value, the old, another,
none). Per attribute of the changed object (size, colour, material, shape) it
says how often the change captions name it, how often rightly (against a
uniform draw) and which value they name most: where a model does not see an
attribute, its captions name one value or the chance share. Several files:
each, then these object tables summed or averaged; ``--references`` grades
the references instead. A prediction that is ``null`` (no caption) counts as
not true, with every partial check wrong, and ends on no value.

Example::

    python tools/analysis_tools/check_synthetic_captions.py \\
        work_dirs/quickstart/test/predictions_20260101_120000.json \\
        --data-root data/synthetic_clevr_change
"""
import argparse
import sys
from collections import Counter
from statistics import mean

from mmidc.evaluation.metrics.caption_scorer import subset_counts
from mmidc.evaluation.metrics.caption_truth import (format_object_word_table,
                                                    format_truth_table,
                                                    truth_scores)
from mmidc.evaluation.prediction_files import read_metric_records
from mmidc.synthetic.caption_grading import (grade_records, load_scene_graph,
                                             object_word_rows)
from mmidc.synthetic.properties import WORD_TO_COLOR, WORD_TO_MATERIAL
from mmidc.text.caption_words import normalize_caption

#: word -> (attribute, value) for the words a new value is named by
VALUE_WORDS = {**{w: ('colour', v) for w, v in WORD_TO_COLOR.items()},
               **{w: ('material', v) for w, v in WORD_TO_MATERIAL.items()}}
OBJECT_WORDS_TITLE = (
    'How change captions describe the changed object (% of change captions '
    'naming each attribute; % of those naming its value):')
ROLES_TITLE = ('The changed attribute in the description of the object of '
               'colour and material changes (captions):')
ENDS_TITLE = ('The same captions by the value in the description and the '
              'value they end on (captions):')
#: what the description of the object names of the changed attribute
ROLES = ('its value before', 'its value after', 'another', 'not named')
#: what the caption ends on, of the changed attribute
ENDS = ('the new', 'the old', 'another', 'no value')
ENDINGS = ('colour named before', 'another colour', 'material named before',
           'another material', 'neither')


def caption_words(caption) -> list:
    """The words of a normalised caption; none for a prediction that is no
    caption (``None``), which is counted as not true and ending on no
    value."""
    return normalize_caption(caption).split() \
        if isinstance(caption, str) else []


def last_value_word(caption: str) -> str:
    """What the caption's last word names: one of :data:`ENDINGS`."""
    words = caption_words(caption)
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


def object_value_role(verdict, change: dict) -> str:
    """Which of :data:`ROLES` the changed attribute of a colour / material
    change has in the caption's description of the object (which should
    name the value before the change, if any)."""
    named = (verdict.named_attributes or {}).get(change['type'])
    if named is None:
        return 'not named'
    value, before = named
    if value == before:
        return 'its value before'
    return 'its value after' if value == change['to'] else 'another'


def ending_value(caption: str, change: dict) -> str:
    """What a colour / material change caption's last word names of the
    changed attribute: one of :data:`ENDS`."""
    lookup = WORD_TO_COLOR if change['type'] == 'color' else WORD_TO_MATERIAL
    words = caption_words(caption)
    value = lookup.get(words[-1]) if words else None
    if value is None:
        return 'no value'
    if value == change['to']:
        return 'the new'
    return 'the old' if value == change['from'] else 'another'


def object_value_counts(records: list, verdicts: list,
                        data_root: str) -> dict:
    """Per colour / material change type: a Counter of
    ``(object_value_role, ending_value)`` over its captions."""
    counts = {'color': Counter(), 'material': Counter()}
    for record, verdict in zip(records, verdicts):
        if record['change_type'] in counts:
            change = load_scene_graph(data_root, record['pair_id'])['change']
            counts[record['change_type']][(
                object_value_role(verdict, change),
                ending_value(record['prediction'], change))] += 1
    return counts


def object_value_table(counts: dict) -> str:
    """:func:`object_value_counts` as a table: per colour / material
    change, how many captions describe the changed object by each of
    :data:`ROLES` of the changed attribute."""
    rows = ['subset    pairs  ' + '  '.join(ROLES)]
    for kind, pairs in counts.items():
        roles = Counter()
        for (role, _), n in pairs.items():
            roles[role] += n
        rows.append(f'{kind:<8} {sum(roles.values()):>6}  ' + '  '.join(
            f'{roles[e]:>{len(e)}}' for e in ROLES))
    return '\n'.join(rows)


def ending_table(counts: dict) -> str:
    """:func:`object_value_counts` by description and ending: per colour /
    material change and value in the description (:data:`ROLES`), how many
    captions end on each of :data:`ENDS`."""
    head = 'subset    description        captions  '
    rows = [head + '  '.join(f'ends on {e}' for e in ENDS)]
    for kind, pairs in counts.items():
        for role in ROLES:
            row = [pairs[(role, e)] for e in ENDS]
            rows.append(f'{kind:<8}  {role:<17}  {sum(row):>8}  ' + '  '.join(
                f'{n:>{len(e) + 8}}' for n, e in zip(row, ENDS)))
    return '\n'.join(rows)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Check predicted captions against the synthetic scene '
        'graphs')
    parser.add_argument('predictions', nargs='+',
                        help='predictions JSON from IDCMetric (several: each '
                        'checked, then their object tables summed / averaged)')
    parser.add_argument('--data-root', default='data/synthetic_clevr_change',
                        help='the generated data set (its scenes/*.json)')
    parser.add_argument('--show', type=int, default=3,
                        help='false captions to print per change type')
    parser.add_argument('--references', action='store_true',
                        help='grade each pair\'s reference captions (the '
                        'file\'s `references`) instead of its predictions: '
                        'every one should be true, and the object word table '
                        'says how the references describe the changed object')
    return parser.parse_args(argv)


def reference_records(records: list, path: str) -> list:
    """One record per reference caption of each record, as its
    prediction."""
    for i, record in enumerate(records):
        if not isinstance(record.get('references'), list):
            raise KeyError(f'{path}: record {i} has no list of references '
                           f'(keys: {sorted(record)})')
    return [dict(record, prediction=caption) for record in records
            for caption in record['references']]


def read_records(path: str, references: bool = False) -> list:
    """The records of an ``IDCMetric`` predictions file, or a ``ValueError``
    naming the file and the form expected (JSON Lines of
    ``caption_pair.py``, coco-caption results ...)."""
    keys = ('pair_id', 'change_type') + (() if references else ('prediction', ))
    return read_metric_records(path, keys, 'score that split with '
                               'tools/test.py to write one (the change type '
                               'of each pair comes from it)')


def check_file(path: str, data_root: str, show: int,
               references: bool = False):
    """Print the tables and examples of one predictions file (of its
    references with ``references``); returns its scores (``truth_scores``'
    keys, x100), :func:`object_word_rows` and :func:`object_value_counts`."""
    records = read_records(path, references)
    if references:
        records = reference_records(records, path)
    verdicts = grade_records(records, data_root)
    scores = truth_scores(records, verdicts)
    print(f'Caption truth of {path}{" (its references)" if references else ""}'
          ' (% of captions):')
    print(format_truth_table(scores, subset_counts(records),
                             'references' if references else 'pairs'))
    print('The last word of colour and material change captions (captions):')
    print(value_word_table(records))
    roles = object_value_counts(records, verdicts, data_root)
    print(ROLES_TITLE)
    print(object_value_table(roles))
    print(ENDS_TITLE)
    print(ending_table(roles))
    rows = object_word_rows(records, verdicts)
    print(OBJECT_WORDS_TITLE)
    print(format_object_word_table(rows))
    shown = {}
    for record, verdict in zip(records, verdicts):
        kind = record['change_type']
        if verdict.problems and shown.get(kind, 0) < show:
            shown[kind] = shown.get(kind, 0) + 1
            print(f'[{kind}] {record["pair_id"]}: '
                  + '; '.join(verdict.problems))
    return scores, rows, roles


def mean_object_word_rows(tables: list) -> list:
    """The mean over files of each attribute's ``named`` and ``right``
    (``right`` over the files that name it); ``most_named``: the value most
    often the most named, with its mean share where it is."""
    rows = []
    for per_file in zip(*tables):
        row = dict(per_file[0], pairs=sum(r['pairs'] for r in per_file),
                   named=mean(r['named'] for r in per_file))
        rights = [r['right'] for r in per_file if r['right'] is not None]
        row['right'] = mean(rights) if rights else None
        most = [r['most_named'] for r in per_file if r['most_named']]
        row['most_named'] = None
        if most:
            value = Counter(v for v, _ in most).most_common(1)[0][0]
            row['most_named'] = (value, mean(s for v, s in most if v == value))
        rows.append(row)
    return rows


def main(argv=None):
    """Print the tables and examples; returns the scores (``truth_scores``'
    keys, x100), a list of them, one per file, when there are several."""
    args = parse_args(argv)
    results = [check_file(path, args.data_root, args.show, args.references)
               for path in args.predictions]
    if len(results) == 1:
        return results[0][0]
    print(f'Over the {len(results)} files: ' + ROLES_TITLE)
    summed = {kind: sum((r[2][kind] for r in results), Counter())
              for kind in results[0][2]}
    print(object_value_table(summed))
    print(f'Over the {len(results)} files: ' + ENDS_TITLE)
    print(ending_table(summed))
    print(f'Mean over the {len(results)} files: ' + OBJECT_WORDS_TITLE)
    print(format_object_word_table(
        mean_object_word_rows([rows for _, rows, _ in results])))
    return [scores for scores, _, _ in results]


if __name__ == '__main__':
    sys.exit(0 if main() else 1)
