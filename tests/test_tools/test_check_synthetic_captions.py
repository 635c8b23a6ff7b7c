"""tools/analysis_tools/check_synthetic_captions.py on a tiny generated set
(its numbers against CaptionTruthMetric's: tests/test_evaluation/
test_metrics/test_caption_truth_metric.py)."""
import json
import re
from collections import Counter

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
    # every reference names the changed object rightly
    assert re.search(r'\nshape +[0-9.]+ +100\.0 +33\.3 ', out)

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


def _predictions_with_references(tmp_path, num_pairs, seed, prediction):
    """A generated set and a predictions file of ``prediction`` for each
    of its change pairs, with the pairs' references."""
    root = str(tmp_path / 'synth')
    pairs = make_synthetic_change_pairs(root, num_pairs, seed=seed)
    records = [dict(pair_id=pair_id, change_type=change_type,
                    prediction=prediction, references=refs)
               for pair_id, change_type, refs in pairs]
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps(records))
    return root, pairs, records, path


def test_references_grades_every_reference(tmp_path, capsys):
    root, pairs, records, path = _predictions_with_references(
        tmp_path, 4, 7, 'nothing has changed')
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    assert tool.main([str(path), '--data-root', root])['total'] == 0.0
    scores = tool.main([str(path), '--data-root', root, '--references'])
    assert scores['total'] == 100.0
    out = capsys.readouterr().out
    assert re.search(r'\nsubset +references +true ', out)  # counts captions
    assert re.search(rf'\ntotal +{sum(len(refs) for *_, refs in pairs)} '
                     r'+100\.0 ', out)
    assert '(its references)' in out
    path.write_text(json.dumps([dict(records[0], references=None)]))
    with pytest.raises(KeyError, match='record 0 has no list of references'):
        tool.main([str(path), '--data-root', root, '--references'])


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


def test_several_files_are_each_checked_then_averaged(tmp_path, capsys):
    root = str(tmp_path / 'synth')
    pairs = make_synthetic_change_pairs(root, 4, seed=6)
    paths = []
    for i, caption in enumerate(('refs', 'the gray cylinder is gone')):
        records = [dict(pair_id=pair_id, change_type=change_type,
                        prediction=refs[0] if caption == 'refs' else caption)
                   for pair_id, change_type, refs in pairs]
        paths.append(tmp_path / f'predictions_{i}.json')
        paths[-1].write_text(json.dumps(records))
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    scores = tool.main([str(p) for p in paths] + ['--data-root', root])
    assert [s['total'] for s in scores] == [100.0, 0.0]
    out = capsys.readouterr().out
    assert out.count('Caption truth of') == 2
    assert 'Mean over the 2 files: How change captions' in out
    summed = out.split('Over the 2 files: ')[1].splitlines()
    kinds = [change_type for _, change_type, _ in pairs]
    for line, kind in zip(summed[2:4], ('color', 'material')):
        assert line.split()[:2] == [kind, str(2 * kinds.count(kind))]


def test_mean_object_word_rows():
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    shape = dict(attribute='shape', pairs=10, chance=100 / 3)
    tables = [[dict(shape, named=20.0, right=50.0, most_named=('cylinder', 100.0))],
              [dict(shape, named=10.0, right=None, most_named=None)],
              [dict(shape, named=30.0, right=40.0, most_named=('cylinder', 80.0))]]
    row, = tool.mean_object_word_rows(tables)
    assert row['pairs'] == 30 and row['named'] == 20.0
    assert row['right'] == 45.0  # over the files that name a shape
    assert row['most_named'] == ('cylinder', 90.0)


def test_object_value_role_tells_the_value_before_from_after():
    from mmidc.synthetic.caption_checker import CaptionVerdict
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    change = dict(type='color', **{'from': 'red', 'to': 'blue'})

    def role(named):
        return tool.object_value_role(
            CaptionVerdict(named_attributes=named), change)

    assert role(dict(color=('red', 'red'))) == 'its value before'
    assert role(dict(color=('blue', 'red'))) == 'its value after'
    assert role(dict(color=('gray', 'red'))) == 'another'
    assert role(dict(shape=('cube', 'cube'))) == 'not named'
    assert role(None) == 'not named'


def test_references_describe_the_object_by_its_value_before(tmp_path, capsys):
    root, pairs, _, path = _predictions_with_references(tmp_path, 6, 4, 'x')
    assert {'color', 'material'} <= {change_type for _, change_type, _ in pairs}
    load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
        [str(path), '--data-root', root, '--references', '--show', '0'])
    out = capsys.readouterr().out
    table = out.split('(captions):\n')[2].splitlines()
    for line in table[1:3]:  # color, material: nothing after or another
        assert re.fullmatch(r'\w+ +[1-9]\d* +\d+ +0 +0 +\d+', line), line


def test_ending_value_and_the_table_by_description_and_ending():
    from mmidc.synthetic.caption_checker import CaptionVerdict
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    color = dict(type='color', **{'from': 'red', 'to': 'blue'})
    material = dict(type='material', **{'from': 'rubber', 'to': 'metal'})
    assert tool.ending_value('the red cube turned blue', color) == 'the new'
    assert tool.ending_value('the blue cube turned red', color) == 'the old'
    assert tool.ending_value('the blue cube turned gray', color) == 'another'
    assert tool.ending_value('the red cube is gone', color) == 'no value'
    assert tool.ending_value('', color) == 'no value'
    assert tool.ending_value('The red cube turned Blue.', color) == 'the new'
    assert tool.ending_value('the matte cube turned shiny', material) == 'the new'
    assert tool.ending_value('the cube turned matte', material) == 'the old'
    assert tool.ending_value('the cube turned blue', material) == 'no value'
    verdict = CaptionVerdict(named_attributes=dict(color=('blue', 'red')))
    counts = {'color': Counter({(tool.object_value_role(verdict, color),
                                 tool.ending_value('the blue cube turned red',
                                                   color)): 2})}
    table = tool.ending_table(counts).splitlines()
    assert table[0].endswith('ends on the new  ends on the old  ends on another'
                             '  ends on no value')
    assert table[2].split() == ['color', 'its', 'value', 'after', '2', '0', '2',
                                '0', '0']
    assert tool.object_value_table(counts).splitlines()[1].split() == [
        'color', '2', '0', '2', '0', '0']


def test_a_file_of_another_form_is_named_with_the_fix(tmp_path):
    """coco-caption results are not IDCMetric's predictions: the error
    (mmidc.evaluation.prediction_files.read_metric_records) says what to do."""
    tool = load_tool('tools/analysis_tools/check_synthetic_captions.py')
    coco = tmp_path / 'coco.json'
    coco.write_text(json.dumps([dict(image_id='000001.png', caption='a')]))
    with pytest.raises(ValueError, match=re.escape(str(coco)) + '.*IDCMetric.*tools/test.py'):
        tool.main([str(coco), '--data-root', str(tmp_path)])
