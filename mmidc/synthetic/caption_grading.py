"""Grade a model's captions against the scene graphs of their pairs.

A *record* is one pair, ``{'pair_id', 'prediction', 'change_type', ...}``,
the layout of the predictions JSON that :class:`~mmidc.evaluation.IDCMetric`
writes. :func:`grade_records` judges each caption against its pair's scene
graph with the caption checker (a :class:`CaptionVerdict`);
:class:`~mmidc.evaluation.CaptionTruthMetric` and
``tools/analysis_tools/check_synthetic_captions.py`` turn the verdicts into
shares (:mod:`mmidc.evaluation.metrics.caption_truth`).
"""
import json
import os.path as osp
from collections import Counter, OrderedDict
from typing import List, Optional, Sequence

from .caption_checker import (CaptionVerdict, judge_change_caption,
                              judge_no_change_caption, scene_graph_file)
from .properties import COLORS, MATERIALS, SHAPES, SIZES

__all__ = ['NO_CHANGE_TYPE', 'OBJECT_ATTRIBUTES', 'load_scene_graph',
           'grade_records', 'no_caption_verdict', 'object_word_rows']

#: The change type of a no-change (distractor) pair, as the data sets name it.
NO_CHANGE_TYPE = 'none'

#: The attributes a referring expression names, and how many values each has.
OBJECT_ATTRIBUTES = OrderedDict(size=len(SIZES), color=len(COLORS),
                                material=len(MATERIALS), shape=len(SHAPES))


def load_scene_graph(data_root: str, pair_id: str) -> dict:
    """The scene graph of pair ``NNNNNN.png`` (or ``NNNNNN.png_n``).

    Args:
        data_root (str): The generated synthetic set.
        pair_id (str): The pair's id.

    Returns:
        dict: The scene graph (``scenes/CLEVR_default_NNNNNN.json``).

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

    Args:
        records (Sequence[dict]): The pairs, each with ``pair_id``,
            ``prediction`` and ``change_type``.
        data_root (str): The generated synthetic set the pairs are of.

    Returns:
        list[CaptionVerdict]: The verdicts, in the records' order.

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
    are wrong as for a caption that does not parse.

    Args:
        prediction: What the record holds instead of a caption.
        scene (dict, optional): The pair's scene graph; None for a
            no-change pair.
    """
    problems = [f'no caption ({prediction!r})']
    if scene is None:  # a no-change pair
        return CaptionVerdict(problems)
    has_value = scene['change']['type'] in ('color', 'material')
    return CaptionVerdict(problems, right_type=False, right_object=False,
                          right_value=False if has_value else None)


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

    Args:
        records (Sequence[dict]): The pairs (``change_type`` read).
        verdicts (Sequence[CaptionVerdict]): Their verdicts
            (:func:`grade_records`), in the same order.
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
