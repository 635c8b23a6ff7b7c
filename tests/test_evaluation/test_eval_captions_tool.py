"""tools/analysis_tools/eval_captions.py on a tiny predictions file."""
import json

import pytest

from mmidc.evaluation import IDCMetric
from tests.helpers import load_tool as _load_tool
from tests.helpers.idc_pairs import data_samples, records


def load_tool():
    return _load_tool('tools/analysis_tools/eval_captions.py')


def test_rescores_a_predictions_file(tmp_path, capsys):
    # The file IDCMetric writes ...
    metric = IDCMetric(metrics=('Bleu', 'CIDEr'), output_dir=str(tmp_path))
    metric.process(None, data_samples())
    expected = metric.compute_metrics(metric.results)
    (pred_file, ) = tmp_path.glob('predictions_*.json')
    assert json.loads(pred_file.read_text()) == records()
    # ... re-scored by the tool gives the same numbers and table rows.
    out = tmp_path / 'scores.json'
    scores = load_tool().main(
        [str(pred_file), '--metrics', 'Bleu', 'CIDEr', '--out', str(out)])
    assert scores == expected
    assert json.loads(out.read_text()) == expected
    table = capsys.readouterr().out
    for row in ('total', 'color', 'material', 'add', 'move', 'semantic',
                'distractor'):
        assert f'\n{row} ' in table
    assert '\ndrop ' not in table


def test_bad_file(tmp_path):
    tool = load_tool()
    with pytest.raises(SystemExit, match='no such file'):
        tool.main([str(tmp_path / 'missing.json')])
    bad = tmp_path / 'bad.json'
    bad.write_text(json.dumps([{'pair_id': 'a', 'prediction': 'x'}]))
    with pytest.raises(ValueError, match="bad.json.*'references'"):
        tool.main([str(bad), '--metrics', 'CIDEr'])
