"""mmidc.evaluation.metrics.caption_truth: grading records, the shares per
subset and their table (graded against generated scene graphs:
test_caption_truth_metric.py)."""
import json

import pytest

from mmidc.evaluation.metrics.caption_truth import (format_object_word_table,
                                                    format_truth_table,
                                                    grade_records,
                                                    load_scene_graph,
                                                    object_word_rows,
                                                    subset_sizes, truth_scores)
from mmidc.synthetic.caption_checker import CaptionVerdict


def test_no_change_pairs_need_no_scene_graph_and_faults_are_named(tmp_path):
    records = [dict(pair_id='000001.png', prediction='there is no change',
                    change_type='none'),
               dict(pair_id='000002.png', prediction='the cube moved',
                    change_type='none')]
    verdicts = grade_records(records, str(tmp_path))
    assert [v.true for v in verdicts] == [True, False]
    with pytest.raises(KeyError, match="record 0 has no 'prediction'"):
        grade_records([dict(pair_id='000001.png', change_type='none')], '')
    moved = dict(pair_id='000003.png', prediction='x', change_type='move')
    with pytest.raises(FileNotFoundError, match='CLEVR_default_000003.json'):
        grade_records([moved], str(tmp_path))
    (tmp_path / 'scenes').mkdir()
    (tmp_path / 'scenes' / 'CLEVR_default_000003.json').write_text(
        json.dumps(dict(change=dict(type='color'))))
    assert load_scene_graph(str(tmp_path), '000003.png')['change']['type'] == 'color'
    with pytest.raises(ValueError, match="has change type 'move'.*'color'"):
        grade_records([moved], str(tmp_path))


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
    assert subset_sizes(records) == dict(total=3, color=2, semantic=2, distractor=1)
    table = format_truth_table(scores, subset_sizes(records)).splitlines()
    assert table[0].split() == ['subset', 'pairs', 'true', 'right', 'type', 'right',
                                'object', 'right', 'value']
    assert table[1].split() == ['total', '3', '66.7', '100.0', '-', '-']
    assert table[2].split() == ['color', '2', '50.0', '100.0', '100.0', '50.0']


def test_object_word_rows_count_the_named_attributes_of_change_pairs():
    records = [dict(change_type=t) for t in ('color', 'drop', 'add', 'none')]
    verdicts = [
        CaptionVerdict(named_attributes=dict(
            shape=('cylinder', 'cube'), color=('red', 'red'))),
        CaptionVerdict(named_attributes=dict(shape=('cylinder', 'cylinder'))),
        CaptionVerdict(),  # did not parse: names nothing
        CaptionVerdict(named_attributes=dict(shape=('cube', 'cube'))),  # no-change: left out
    ]
    rows = {r['attribute']: r for r in object_word_rows(records, verdicts)}
    assert list(rows) == ['size', 'color', 'material', 'shape']
    assert rows['shape']['pairs'] == 3
    assert rows['shape']['named'] == pytest.approx(200 / 3)
    assert rows['shape']['right'] == 50.0
    assert rows['shape']['chance'] == pytest.approx(100 / 3)
    assert rows['shape']['most_named'] == ('cylinder', 100.0)
    assert rows['color']['right'] == 100.0 and rows['color']['chance'] == 12.5
    assert rows['size']['named'] == 0 and rows['size']['right'] is None
    table = format_object_word_table(rows.values()).splitlines()
    assert table[1].split() == ['size', '0.0', '-', '50.0', '-']
    assert table[4].split() == ['shape', '66.7', '50.0', '33.3', 'cylinder',
                                '(100.0)']
