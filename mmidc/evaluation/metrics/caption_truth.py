"""Caption truth on the synthetic CLEVR-Change-style set: grading and shares.

Shared by :class:`CaptionTruthMetric` (during validation / test) and
``tools/analysis_tools/check_synthetic_captions.py`` (a predictions file).
A *record* is one pair, ``{'pair_id', 'prediction', 'change_type', ...}``,
the layout of the predictions JSON that :class:`IDCMetric` writes. Each
record is graded against the scene graph of its pair with the synthetic
generator's caption checker (:mod:`mmidc.synthetic.caption_checker`):
entirely true, and the partial checks right change type, right object (change
pairs) and right new value (colour and material changes).
"""
import json
import os.path as osp
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence

from mmidc.synthetic.caption_checker import (CaptionVerdict,
                                             judge_change_caption,
                                             judge_no_change_caption,
                                             scene_graph_file)
from .caption_scorer import NO_CHANGE_TYPE, change_type_subsets

#: The partial checks, in report order (key infix, verdict attribute).
PARTIAL_CHECKS = (('type', 'right_type'), ('object', 'right_object'),
                  ('value', 'right_value'))


def load_scene_graph(data_root: str, pair_id: str) -> dict:
    """The scene graph of pair ``NNNNNN.png`` (or ``NNNNNN.png_n``).

    Raises:
        FileNotFoundError: naming the missing file and ``data_root``.
    """
    path = scene_graph_file(data_root, pair_id)
    if not osp.isfile(path):
        raise FileNotFoundError(
            f'{path}: no scene graph for pair {pair_id!r}; data_root '
            f'({data_root!r}) must be the synthetic set the captions are of '
            '(its scenes/ folder)')
    with open(path) as f:
        return json.load(f)


def grade_records(records: Sequence[dict],
                  data_root: str) -> List[CaptionVerdict]:
    """One :class:`CaptionVerdict` per record, in order.

    A pair of type ``'none'`` is right with a no-change sentence; any other
    type is the change of its scene graph (the record's type must match it).

    Raises:
        KeyError: a record without ``pair_id``, ``prediction`` or
            ``change_type``.
        ValueError: a record whose change type is not its scene graph's.
    """
    verdicts = []
    for i, record in enumerate(records):
        for key in ('pair_id', 'prediction', 'change_type'):
            if key not in record:
                raise KeyError(f'caption truth: record {i} has no {key!r} '
                               f'(keys: {sorted(record)})')
        change_type = record['change_type']
        if change_type == NO_CHANGE_TYPE:
            verdicts.append(judge_no_change_caption(record['prediction']))
            continue
        scene = load_scene_graph(data_root, record['pair_id'])
        if scene['change']['type'] != change_type:
            raise ValueError(
                f'caption truth: pair {record["pair_id"]!r} has change type '
                f'{change_type!r}, its scene graph in {data_root} has '
                f'{scene["change"]["type"]!r}: another data set?')
        verdicts.append(judge_change_caption(record['prediction'], scene))
    return verdicts


def truth_scores(records: Sequence[dict],
                 verdicts: Sequence[CaptionVerdict]) -> 'OrderedDict':
    """Shares (x100) of entirely true captions and of each partial check.

    Keys: ``total`` and each subset of :func:`change_type_subsets` (each
    change type, ``semantic``, ``distractor``) for the entirely true share;
    ``type/<subset>``, ``object/<subset>``, ``value/<subset>`` for the
    partial checks, for the subsets where the check exists for every pair
    (type: all; object: the change types and ``semantic``; value: ``color``
    and ``material``).
    """
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


def subset_sizes(records: Sequence[dict]) -> Dict[str, int]:
    """Pairs in ``total`` and in each subset of :func:`truth_scores`."""
    sizes = {'total': len(records)}
    sizes.update({k: len(v) for k, v in change_type_subsets(records).items()})
    return sizes


def format_truth_table(scores: Dict[str, float],
                       sizes: Optional[Dict[str, int]] = None) -> str:
    """A plain-text table: a row per subset, the columns ``true`` and the
    partial checks (``-`` where a check does not exist)."""
    rows = [k for k in scores if '/' not in k]
    header = ['subset'] + (['pairs'] if sizes else []) + [
        'true', 'right type', 'right object', 'right value']
    lines = [header]
    for row in rows:
        line = [row] + ([str(sizes.get(row, ''))] if sizes else [])
        line.append(f'{scores[row]:.1f}')
        for infix, _ in PARTIAL_CHECKS:
            value = scores.get(f'{infix}/{row}')
            line.append('-' if value is None else f'{value:.1f}')
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return '\n'.join('  '.join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(line, widths)))
                     for line in lines)
