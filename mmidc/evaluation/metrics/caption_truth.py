"""Caption truth on the synthetic CLEVR-Change-style set: the shares and
their tables, for :class:`CaptionTruthMetric` and
``tools/analysis_tools/check_synthetic_captions.py``. The verdicts are
:func:`mmidc.synthetic.caption_grading.grade_records`'s, read by their
attributes ``true``, ``right_type``, ``right_object``, ``right_value``.
"""
from collections import OrderedDict
from typing import Dict, Optional, Sequence

from .caption_scorer import change_type_subsets, plain_table

#: The partial checks, in report order (key infix, verdict attribute).
PARTIAL_CHECKS = (('type', 'right_type'), ('object', 'right_object'),
                  ('value', 'right_value'))


def truth_scores(records: Sequence[dict],
                 verdicts: Sequence) -> 'OrderedDict':
    """Shares (x100) of entirely true captions and of each partial check:
    the keys of :class:`CaptionTruthMetric` without its prefix (``total``
    and each subset of :func:`change_type_subsets`; ``type/<subset>``,
    ``object/<subset>``, ``value/<subset>`` where the check exists for
    every pair of the subset)."""
    by_id = {r['pair_id']: v for r, v in zip(records, verdicts)}
    subsets = OrderedDict(total=[r['pair_id'] for r in records])
    subsets.update(change_type_subsets(records))
    scores = OrderedDict()
    for name, ids in subsets.items():
        scores[name] = 100.0 * sum(by_id[i].true for i in ids) / len(ids)
    for infix, attribute in PARTIAL_CHECKS:
        for name, ids in subsets.items():
            values = [getattr(by_id[i], attribute) for i in ids]
            if None not in values:
                scores[f'{infix}/{name}'] = 100.0 * sum(values) / len(values)
    return scores


def format_truth_table(scores: Dict[str, float],
                       sizes: Optional[Dict[str, int]] = None,
                       counted: str = 'pairs') -> str:
    """A plain-text table: a row per subset, the columns ``true`` and the
    partial checks (``-`` where a check does not exist); ``sizes``:
    :func:`~mmidc.evaluation.metrics.caption_scorer.subset_counts`, in a
    column headed ``counted`` (what the records are)."""
    rows = [k for k in scores if '/' not in k]
    header = ['subset'] + ([counted] if sizes else []) + [
        'true', 'right type', 'right object', 'right value']
    lines = [header]
    for row in rows:
        line = [row] + ([str(sizes.get(row, ''))] if sizes else [])
        line.append(f'{scores[row]:.1f}')
        for infix, _ in PARTIAL_CHECKS:
            value = scores.get(f'{infix}/{row}')
            line.append('-' if value is None else f'{value:.1f}')
        lines.append(line)
    return plain_table(lines)


def format_object_word_table(rows: Sequence[dict]) -> str:
    """A plain-text table of
    :func:`mmidc.synthetic.caption_grading.object_word_rows`."""
    lines = [['attribute', 'named', 'right when named', 'chance',
              'most named']]
    for row in rows:
        most = row['most_named']
        lines.append([
            row['attribute'], f'{row["named"]:.1f}',
            '-' if row['right'] is None else f'{row["right"]:.1f}',
            f'{row["chance"]:.1f}',
            '-' if most is None else f'{most[0]} ({most[1]:.1f})'])
    return plain_table(lines)
