"""mmidc.synthetic.caption_grading: grading records against their scene
graphs, and the words the change captions name the changed object with
(graded against generated scene graphs: test_caption_truth_metric.py)."""
import json

import pytest

from mmidc.synthetic.caption_checker import CaptionVerdict
from mmidc.synthetic.caption_grading import (grade_records, load_scene_graph,
                                             no_caption_verdict,
                                             object_word_rows)


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


def test_a_prediction_that_is_no_caption_is_wrong_everywhere(tmp_path):
    (tmp_path / 'scenes').mkdir()
    (tmp_path / 'scenes' / 'CLEVR_default_000004.json').write_text(
        json.dumps(dict(change=dict(type='color'))))
    records = [dict(pair_id='000004.png', prediction=None, change_type='color'),
               dict(pair_id='000005.png', prediction=None, change_type='none')]
    changed, unchanged = grade_records(records, str(tmp_path))
    assert changed == no_caption_verdict(None, dict(change=dict(type='color')))
    assert (changed.true, changed.right_type, changed.right_object,
            changed.right_value) == (False, False, False, False)
    assert changed.problems == ['no caption (None)']
    assert (unchanged.true, unchanged.right_object) == (False, None)


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
