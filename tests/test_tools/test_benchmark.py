"""tools/analysis_tools/benchmark.py: a smoke run on the tiny config (1 step
each, 2 decoding steps); the cached and the reference-style decoding loops
must give the same tokens."""
import importlib.util
import json
import os.path as osp

import pytest
import torch

from mmidc.utils.benchmark import count_flops, matmul_peak, time_call

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
TOOL = osp.join(ROOT, 'tools', 'analysis_tools', 'benchmark.py')


def load_tool():
    spec = importlib.util.spec_from_file_location('benchmark_tool', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_matmul_peak_and_flops():
    peak = matmul_peak('fp32', size=256, repeats=1)
    assert peak['gflops'] > 0 and peak['cpu_time_gflops'] > 0
    a, b = torch.randn(8, 16), torch.randn(16, 4)
    assert count_flops(lambda: a @ b)['total'] == 2 * 8 * 16 * 4
    timing = time_call(lambda: a @ b, steps=2, warmup=0)
    assert timing['steps'] == 2 and timing['wall_s'] >= 0
    with pytest.raises(ValueError, match='dtype'):
        matmul_peak('int8', size=8)


def test_quick_run_writes_tables_and_json(tmp_path, capsys):
    tool = load_tool()
    out = tmp_path / 'bench.json'
    tool.main(['--quick', '--threads', '1', '--dtypes', 'fp32', '--skip', 'profile', 'variants',
               '--decode-steps', '2', '--data-dir', str(tmp_path / 'data'),
               '--out', str(out)])
    result = json.loads(out.read_text())
    assert result['machine']['cpu_count'] >= 1 and 'load_start' in result
    stages = {(r['stage'], r['dtype']) for r in result['training']}
    assert stages == {('adaptation', 'fp32'), ('captioning', 'fp32')}
    for row in result['training']:
        assert row['pairs_per_s'] > 0 and row['gflop_per_step'] > 0
        assert 0 < row['mfu']
    assert {r['source'] for r in result['loader']} == {'png', 'cache'}
    assert len(result['training_with_loader']) == 2
    assert [r['batch'] for r in result['inference']] == [1, 4]
    assert all(r['same_tokens'] for r in result['inference'])
    assert result['vocab']['restricted']['ids'] < result['vocab']['full']['ids']
    assert any(t['target'].startswith('cache speed-up') for t in result['targets'])
    printed = capsys.readouterr().out
    assert '### training step, synthetic tensors' in printed
