"""tools/analysis_tools/regression_record.py: write a record, compare."""
import pytest
import torch

from mmidc.benchmarks.regression_record import load_record, save_record
from tests.helpers import load_tool


def test_writes_then_compares_equal_and_reports_a_change(tmp_path, capsys):
    tool = load_tool('tools/analysis_tools/regression_record.py')
    path = str(tmp_path / 'record.safetensors')
    args = ['--families', 'clip4idc_retriever']
    assert tool.main([path] + args) == 0
    assert tool.main(['--compare', path] + args) == 0
    assert 'bitwise equal' in capsys.readouterr().out
    tensors, captions = load_record(path)
    tensors['clip4idc_retriever/scores'] = tensors['clip4idc_retriever/scores'] + 1
    save_record(tensors, captions, path)
    assert tool.main(['--compare', path] + args) == 1
    assert 'DIFFERENT clip4idc_retriever/scores' in capsys.readouterr().out


def test_bad_input_is_named(tmp_path):
    tool = load_tool('tools/analysis_tools/regression_record.py')
    bad = tmp_path / 'bad.safetensors'
    bad.write_bytes(b'not a record')
    with pytest.raises(ValueError, match='bad.safetensors'):
        tool.main(['--compare', str(bad)])
    with pytest.raises(SystemExit):
        tool.main([])  # neither an output nor --compare
    with pytest.raises(SystemExit):
        tool.main(['x.safetensors', '--families', 'no_such_family'])
    assert torch.get_num_threads() >= 1
