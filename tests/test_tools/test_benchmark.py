"""tools/analysis_tools/benchmark.py: a smoke run on the tiny config (1 step
each, 2 decoding steps); the cached and the reference-style decoding loops
must give the same tokens."""
import json

import pytest
import torch

from mmidc.utils.benchmark import count_flops, matmul_peak, time_call
from tests.helpers import load_tool

TOOL = 'tools/analysis_tools/benchmark.py'


def test_matmul_peak_and_flops():
    peak = matmul_peak('fp32', size=256, repeats=3)
    assert peak['gflops'] >= peak['median_gflops']  # best call vs median
    a, b = torch.randn(8, 16), torch.randn(16, 4)
    assert count_flops(lambda: a @ b)['total'] == 2 * 8 * 16 * 4
    timing = time_call(lambda: a @ b, steps=2, warmup=0)
    assert timing['steps'] == 2 and timing['wall_min_s'] <= timing['wall_s']
    with pytest.raises(ValueError, match='dtype'):
        matmul_peak('int8', size=8)


def test_quick_run_writes_tables_and_json(tmp_path, capsys):
    tool = load_tool(TOOL)
    out = tmp_path / 'bench.json'
    tool.main(['--quick', '--threads', '1', '--dtypes', 'fp32', '--skip', 'profile', 'variants',
               '--decode-steps', '2', '--data-dir', str(tmp_path / 'data'),
               '--out', str(out)])
    result = json.loads(out.read_text())
    assert 'load_start' in result
    stages = {(r['stage'], r['dtype']) for r in result['training']}
    assert stages == {('adaptation', 'fp32'), ('captioning', 'fp32')}
    for row in result['training']:  # the derived columns agree
        step = row['step_s']
        assert row['pairs_per_s'] == pytest.approx(
            row['batch'] / step, rel=6e-4 / step, abs=0.01)
        # rounding: step_s to 1e-3 s, GFLOP and GFLOP/s to 0.1
        rounding = (0.05 + row['gflop_per_step'] * 6e-4 / step) / step + 0.05
        assert abs(row['achieved_gflops'] - row['gflop_per_step'] / step) <= rounding
        assert sum(row['gflop_by_op'].values()) == pytest.approx(
            row['gflop_per_step'], abs=0.05 + 0.005 * len(row['gflop_by_op']))
        assert row['mfu'] == pytest.approx(
            row['achieved_gflops'] / row['peak_gflops'], abs=1e-3)
    assert {r['source'] for r in result['loader']} == {'png', 'cache'}
    assert len(result['training_with_loader']) == 2
    assert [r['batch'] for r in result['inference']] == [1, 4]
    assert all(r['same_tokens'] for r in result['inference'])
    assert result['vocab']['restricted']['ids'] < result['vocab']['full']['ids']
    assert any(t['target'].startswith('cache speed-up') for t in result['targets'])
    printed = capsys.readouterr().out
    assert '### training step, synthetic tensors' in printed
