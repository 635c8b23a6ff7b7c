"""tools/analysis_tools/check_synthetic_captions.py on a tiny generated set
(its numbers against CaptionTruthMetric's: tests/test_evaluation/
test_metrics/test_caption_truth_metric.py)."""
import json
import re

import pytest

from tests.helpers import load_tool
from tests.helpers.pair_trees import make_synthetic_change_pairs


def test_references_are_true_and_wrong_captions_are_caught(tmp_path, capsys):
    root = str(tmp_path / 'synth')
    pairs = make_synthetic_change_pairs(root, 6, seed=5)
    records = []
    for pair_id, change_type, refs in pairs:
        # a reference (true) for the change pair, a no-change sentence for
        # the distractor (true), and the same two swapped (wrong type)
        records.append(dict(pair_id=pair_id, prediction=refs[0],
                            change_type=change_type))
        records.append(dict(pair_id=pair_id + '_n',
                            prediction='there is no change',
                            change_type='none'))
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps(records))
    scores = load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
        [str(path), '--data-root', root])
    assert scores['total'] == scores['type/total'] == 100.0
    assert scores['semantic'] == scores['object/semantic'] == 100.0
    assert scores['distractor'] == 100.0
    out = capsys.readouterr().out
    assert re.search(r'\ntotal +12 +100\.0 +100\.0 +- +-\n', out)
    assert re.search(r'\ncolor +1( +100\.0){4}\n', out)

    records = []
    for pair_id, change_type, refs in pairs:
        records.append(dict(pair_id=pair_id, prediction='nothing has changed',
                            change_type=change_type))
        records.append(dict(pair_id=pair_id + '_n', prediction=refs[0],
                            change_type='none'))
    path.write_text(json.dumps(records))
    scores = load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
        [str(path), '--data-root', root, '--show', '1'])
    assert scores['total'] == scores['type/total'] == 0.0
    assert scores['object/semantic'] == scores['value/color'] == 0.0
    out = capsys.readouterr().out
    assert 'no known sentence form' in out
    assert 'not one of the no-change sentences' in out


def test_a_wrong_data_root_names_the_missing_scene(tmp_path):
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps([dict(pair_id='000001.png', prediction='x',
                                     change_type='add')]))
    with pytest.raises(FileNotFoundError, match='CLEVR_default_000001.json'):
        load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
            [str(path), '--data-root', str(tmp_path)])


def test_last_value_word_tells_a_named_value_from_a_new_one():
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    records = [
        dict(prediction='the red cube turned red', change_type='color'),
        dict(prediction='the red cube turned blue', change_type='color'),
        dict(prediction='the red rubber cube turned matte', change_type='color'),
        dict(prediction='the matte cube changed to rubber', change_type='material'),
        dict(prediction='the metal cube changed to rubber', change_type='material'),
        dict(prediction='there is no change', change_type='material'),
        dict(prediction='the red cube turned red', change_type='add'),
    ]
    ends = [tool.last_value_word(r['prediction']) for r in records[:6]]
    assert ends == ['colour named before', 'another colour',
                    'material named before', 'material named before',
                    'another material', 'neither']
    table = tool.value_word_table(records).splitlines()
    assert re.fullmatch(r'color +3 +1 +1 +1 +0 +0', table[1])
    assert re.fullmatch(r'material +3 +0 +0 +1 +1 +1', table[2])
