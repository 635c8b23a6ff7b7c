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


def test_out_in_a_new_folder_is_written(tmp_path):
    # the scores were computed, then lost to a FileNotFoundError
    metric = IDCMetric(metrics=('Bleu', ), output_dir=str(tmp_path))
    metric.process(None, data_samples())
    metric.compute_metrics(metric.results)
    (pred_file, ) = tmp_path.glob('predictions_*.json')
    out = tmp_path / 'scores' / 'run1' / 'scores.json'
    scores = load_tool().main([str(pred_file), '--metrics', 'Bleu', '--out', str(out)])
    assert json.loads(out.read_text()) == scores


def test_bad_file(tmp_path):
    tool = load_tool()
    with pytest.raises(SystemExit, match='no such file'):
        tool.main([str(tmp_path / 'missing.json')])
    bad = tmp_path / 'bad.json'
    # predictions without references, and none given
    bad.write_text(json.dumps([{'pair_id': 'a', 'prediction': 'x'}]))
    with pytest.raises(SystemExit, match='bad.json.*no references'):
        tool.main([str(bad), '--metrics', 'CIDEr'])
    # a format that is not recognised is named with the file
    bad.write_text(json.dumps([{'id': 'a', 'text': 'x'}]))
    with pytest.raises(ValueError, match='bad.json: the predictions format '
                       'is not recognised'):
        tool.main([str(bad), '--metrics', 'CIDEr'])


def test_rescores_under_a_remote_sensing_protocol(tmp_path, capsys):
    """--tokenizer rs_words / rs_ids: the metric's numbers, open change
    types, S*m and the no-change decision in the table."""
    from tests.helpers.pair_trees import make_my_pairs_tree
    rows = [dict(pair_id='1', prediction='a house is built.',
                 references=['a house is built on the left .'],
                 change_type='change'),
            dict(pair_id='2', prediction='there is no difference',
                 references=['the scene is the same as before .'],
                 change_type='none')]
    pred_file = tmp_path / 'predictions.json'
    pred_file.write_text(json.dumps(rows))
    metrics = ['--metrics', 'Bleu', 'ROUGE_L', 'CIDEr']
    scores = load_tool().main([str(pred_file), '--tokenizer', 'rs_words',
                               *metrics])
    expected = IDCMetric(tokenizer='rs_words', java=False,
                         out_file_prefix=None).compute_metrics(rows)
    assert scores == expected
    assert scores['decision_acc'] == 100.
    table = capsys.readouterr().out
    assert "protocol 'rs_words'" in table
    for row in ('total', 'change', 'no_change'):
        assert f'\n{row} ' in table
    # rs_ids counts the captions of a config's training set
    root = tmp_path / 'pairs'
    make_my_pairs_tree(str(root), {'train': 2})
    config = tmp_path / 'config.py'
    config.write_text(
        'train_dataloader = dict(dataset=dict(type="ImagePairDataset", '
        f'data_root={str(root)!r}, ann_file="train.jsonl"))\n')
    scores = load_tool().main([
        str(pred_file), '--tokenizer', 'rs_ids', '--min-word-freq', '0',
        '--word-freq-rule', '>', '--vocab-config', str(config), *metrics])
    metric = IDCMetric(
        tokenizer='rs_ids', java=False, min_word_freq=0, word_freq_rule='>',
        vocab_datasets=dict(type='ImagePairDataset', data_root=str(root),
                            ann_file='train.jsonl'), out_file_prefix=None)
    assert scores == metric.compute_metrics(rows)
    # the pairs' captions hold 'the' and 'a', not 'house', 'is' or 'built':
    # those are <UNK> and match each other, so BLEU differs from rs_words
    assert 'house' not in metric.scorer.vocab.word_to_id
    assert scores['Bleu_1'] != pytest.approx(expected['Bleu_1'])
    with pytest.raises(SystemExit, match='--vocab-config'):
        load_tool().main([str(pred_file), '--tokenizer', 'rs_ids',
                          '--min-word-freq', '0', '--word-freq-rule', '>'])
