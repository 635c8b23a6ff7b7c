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
from collections import Counter, OrderedDict
from typing import Dict, List, Optional, Sequence

from mmidc.synthetic.caption_checker import (CaptionVerdict,
                                             judge_change_caption,
                                             judge_no_change_caption,
                                             scene_graph_file)
from mmidc.synthetic.properties import COLORS, MATERIALS, SHAPES, SIZES
from .caption_scorer import NO_CHANGE_TYPE, change_type_subsets

#: The attributes a referring expression names, and how many values each has.
OBJECT_ATTRIBUTES = OrderedDict(size=len(SIZES), color=len(COLORS),
                                material=len(MATERIALS), shape=len(SHAPES))

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
    A prediction that is not a string (``None``: the model wrote nothing, or
    the file holds no caption) is graded as a caption that does not parse:
    not true, every partial check wrong, with the problem ``no caption``.

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
        prediction = record['prediction']
        if change_type == NO_CHANGE_TYPE:
            verdicts.append(judge_no_change_caption(prediction)
                            if isinstance(prediction, str) else
                            no_caption_verdict(prediction, None))
            continue
        scene = load_scene_graph(data_root, record['pair_id'])
        if scene['change']['type'] != change_type:
            raise ValueError(
                f'caption truth: pair {record["pair_id"]!r} has change type '
                f'{change_type!r}, its scene graph in {data_root} has '
                f'{scene["change"]["type"]!r}: another data set?')
        verdicts.append(judge_change_caption(prediction, scene)
                        if isinstance(prediction, str) else
                        no_caption_verdict(prediction, scene))
    return verdicts


def no_caption_verdict(prediction, scene: Optional[dict]) -> CaptionVerdict:
    """The verdict of a prediction that is no caption (``None`` or not a
    string): not true; for a change pair (``scene`` given) the partial checks
    are wrong as for a caption that does not parse."""
    problems = [f'no caption ({prediction!r})']
    if scene is None:  # a no-change pair
        return CaptionVerdict(problems)
    has_value = scene['change']['type'] in ('color', 'material')
    return CaptionVerdict(problems, right_type=False, right_object=False,
                          right_value=False if has_value else None)


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
    return _plain_table(lines)


def _plain_table(lines: List[List[str]]) -> str:
    """Rows of cells, the first column left-aligned, the rest right."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return '\n'.join('  '.join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(line, widths)))
                     for line in lines)


def object_word_rows(records: Sequence[dict],
                     verdicts: Sequence[CaptionVerdict]) -> List[dict]:
    """How the change captions describe the changed object, per attribute.

    Over the change pairs (no-change pairs left out): for each of
    :data:`OBJECT_ATTRIBUTES`, ``named`` the share (x100) of captions whose
    referring expression names it, ``right`` the share of those naming the
    changed object's value, ``chance`` the share one value of a uniform draw
    gets (``100 / number of values``), and ``most_named`` the value named
    most with its share of the naming captions. A caption that does not
    parse names nothing. ``right`` and ``most_named`` are None where no
    caption names the attribute.
    """
    named = [v.named_attributes or {} for r, v in zip(records, verdicts)
             if r['change_type'] != NO_CHANGE_TYPE]
    rows = []
    for attribute, num_values in OBJECT_ATTRIBUTES.items():
        pairs = [n[attribute] for n in named if attribute in n]  # (named, true)
        row = dict(attribute=attribute, pairs=len(named),
                   named=100.0 * len(pairs) / max(len(named), 1),
                   chance=100.0 / num_values, right=None, most_named=None)
        if pairs:
            row['right'] = 100.0 * sum(a == b for a, b in pairs) / len(pairs)
            value, count = Counter(a for a, _ in pairs).most_common(1)[0]
            row['most_named'] = (value, 100.0 * count / len(pairs))
        rows.append(row)
    return rows


def format_object_word_table(rows: Sequence[dict]) -> str:
    """A plain-text table of :func:`object_word_rows`."""
    lines = [['attribute', 'named', 'right when named', 'chance',
              'most named']]
    for row in rows:
        most = row['most_named']
        lines.append([
            row['attribute'], f'{row["named"]:.1f}',
            '-' if row['right'] is None else f'{row["right"]:.1f}',
            f'{row["chance"]:.1f}',
            '-' if most is None else f'{most[0]} ({most[1]:.1f})'])
    return _plain_table(lines)
