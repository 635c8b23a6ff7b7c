"""mmidc.evaluation.metrics.caption_truth: the shares per subset and the
tables (the verdicts: test_synthetic/test_caption_grading.py)."""
import pytest

from mmidc.evaluation.metrics.caption_scorer import subset_counts
from mmidc.evaluation.metrics.caption_truth import (format_object_word_table,
                                                    format_truth_table,
                                                    truth_scores)
from mmidc.synthetic.caption_checker import CaptionVerdict
from mmidc.synthetic.caption_grading import object_word_rows


def test_shares_and_table():
    records = [dict(pair_id='a', change_type='color'),
               dict(pair_id='b', change_type='color'),
               dict(pair_id='c', change_type='none')]
    verdicts = [CaptionVerdict([], True, True, True),
                CaptionVerdict(['wrong value'], True, True, False),
                CaptionVerdict([], True)]
    scores = truth_scores(records, verdicts)
    assert scores['total'] == pytest.approx(200 / 3)
    assert (scores['color'], scores['distractor']) == (50.0, 100.0)
    assert scores['value/color'] == 50.0 and scores['object/semantic'] == 100.0
    assert 'object/total' not in scores  # no object for a no-change pair
    assert subset_counts(records) == dict(total=3, color=2, semantic=2, distractor=1)
    table = format_truth_table(scores, subset_counts(records)).splitlines()
    assert table[0].split() == ['subset', 'pairs', 'true', 'right', 'type', 'right',
                                'object', 'right', 'value']
    assert table[1].split() == ['total', '3', '66.7', '100.0', '-', '-']
    assert table[2].split() == ['color', '2', '50.0', '100.0', '100.0', '50.0']


def test_object_word_table():
    records = [dict(change_type=t) for t in ('color', 'drop', 'add')]
    verdicts = [
        CaptionVerdict(named_attributes=dict(
            shape=('cylinder', 'cube'), color=('red', 'red'))),
        CaptionVerdict(named_attributes=dict(shape=('cylinder', 'cylinder'))),
        CaptionVerdict(),  # did not parse: names nothing
    ]
    rows = object_word_rows(records, verdicts)
    table = format_object_word_table(rows).splitlines()
    assert table[0].split() == ['attribute', 'named', 'right', 'when', 'named',
                                'chance', 'most', 'named']
    assert table[1].split() == ['size', '0.0', '-', '50.0', '-']
    assert table[4].split() == ['shape', '66.7', '50.0', '33.3', 'cylinder',
                                '(100.0)']
