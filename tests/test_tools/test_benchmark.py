"""tools/analysis_tools/benchmark.py and its benchmark_lib: smoke runs on the
tiny config (1 step each, 2 decoding steps), the cached and the
reference-style decoding loops giving the same tokens, and the arithmetic of
the end-to-end rows against hand computations."""
import importlib.util
import json
import os.path as osp
import sys

import pytest
import torch

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
TOOL = osp.join(ROOT, 'tools', 'analysis_tools', 'benchmark.py')


@pytest.fixture(scope='module')
def tool():
    """The tool, loaded by path; it registers ``benchmark_lib`` (next to it)
    in ``sys.modules``."""
    spec = importlib.util.spec_from_file_location('benchmark_tool', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def lib(tool):
    return sys.modules['benchmark_lib']


def test_matmul_peak_and_flops(lib):
    from benchmark_lib.measure import count_flops, matmul_peak, time_call
    peak = matmul_peak('fp32', size=256, repeats=3)
    assert peak['gflops'] >= peak['median_gflops']  # best call vs median
    a, b = torch.randn(8, 16), torch.randn(16, 4)
    assert count_flops(lambda: a @ b)['total'] == 2 * 8 * 16 * 4
    timing = time_call(lambda: a @ b, steps=2, warmup=0)
    assert timing['steps'] == 2 and timing['wall_min_s'] <= timing['wall_s']
    with pytest.raises(ValueError, match='dtype'):
        matmul_peak('int8', size=8)


def test_batch_per_stage(tool):
    args = tool.parse_args(['--batch', 'adaptation=128', 'captioning=64', '--archs', 'tiny'])
    assert tool.batch_size(args, 'tiny', 'adaptation') == 128
    assert tool.batch_size(args, 'tiny', 'captioning') == 64
    args = tool.parse_args(['--batch', '16'])
    assert {tool.batch_size(args, 'vit-b32', s) for s in tool.STAGES} == {16}
    args = tool.parse_args([])  # the archs' defaults
    assert tool.batch_size(args, 'vit-b32', 'adaptation') == 8
    with pytest.raises(SystemExit):
        tool.parse_args(['--batch', 'pretraining=3'])
    gpu = tool.parse_args(['--gpu-rows', '--device', 'cpu'])  # preset, device overridden
    assert gpu.batch == dict(adaptation=128, captioning=64)
    assert 'peer' in gpu.sections and 'e2e' in gpu.sections and gpu.archs == ['vit-b32']


def test_steady_state_arithmetic(lib):
    """Windows of 10 iterations (MMEngine logs their means); the first two
    are warm-up; the last holds 5 iterations."""
    windows = [dict(step=10, time=9.0, data_time=1.0),
               dict(step=20, time=1.0, data_time=0.5),
               dict(step=30, time=0.5, data_time=0.1),
               dict(step=40, time=0.5, data_time=0.05),
               dict(step=45, time=0.8, data_time=0.2)]
    row = lib.e2e.steady_state(windows, batch=16, skip=2)
    # by hand: 25 iterations in 10*0.5 + 10*0.5 + 5*0.8 = 14 s; data 2.5 s
    assert row['iters'] == 25
    assert row['iter_s'] == pytest.approx(14 / 25)
    assert row['data_share'] == pytest.approx(2.5 / 14, abs=1e-3)
    assert row['pairs_per_s'] == pytest.approx(16 * 25 / 14, abs=0.1)
    assert row['first_window_iter_s'] == 9.0
    with pytest.raises(ValueError, match='too few'):
        lib.e2e.steady_state(windows[:2], batch=16, skip=2)


def test_write_section_keeps_the_text_around(lib, tmp_path):
    doc = tmp_path / 'bench.md'
    doc.write_text('# Title\n\nhand-written\n')
    lib.report.write_section(str(doc), 'cpu', 'table one')
    lib.report.write_section(str(doc), 'gpu', 'gpu table')
    lib.report.write_section(str(doc), 'cpu', 'table two')
    text = doc.read_text()
    assert text.startswith('# Title\n\nhand-written\n')
    assert 'table two' in text and 'table one' not in text and 'gpu table' in text
    assert text.count('<!-- generated: cpu start -->') == 1
    assert lib.report.markdown([dict(a=1.23456, b=True)], ['a', 'b']).splitlines()[-1] \
        == '| 1.23 | yes |'


def test_quick_run_writes_tables_and_json(tool, tmp_path, capsys):
    out = tmp_path / 'bench.json'
    tool.main(['--quick', '--threads', '1', '--dtypes', 'fp32', '--sections', 'train',
               'variants', 'loader', 'inference', 'vocab', '--decode-steps', '2',
               '--data-dir', str(tmp_path / 'data'), '--out', str(out)])
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
    assert {r['variant'] for r in result['variants']} == {'baseline', 'fused', 'no-dropout'}
    assert {r['source'] for r in result['loader']} == {'png', 'cache'}
    for row in result['loader']:  # per core = steady rate / max(1, workers)
        steady = row['steady_pairs_per_s'] or 0
        assert row['steady_pairs_per_s_per_core'] == pytest.approx(
            steady / max(1, row['workers']), abs=0.051)
    assert [r['batch'] for r in result['inference']] == [1, 4]
    assert all(r['same_tokens'] for r in result['inference'])
    assert result['vocab']['restricted']['ids'] < result['vocab']['full']['ids']
    printed = capsys.readouterr().out
    assert '### training step, synthetic tensors' in printed


def assert_rate(rate, count, seconds):
    """``rate`` (rounded to 0.1) is ``count / seconds`` for ``seconds``
    rounded to 1e-4: off by at most ``count * 5e-5 / (t * seconds)``."""
    tolerance = count * 5e-5 / (seconds - 5e-5) ** 2 + 0.051
    assert abs(rate - count / seconds) <= tolerance, (rate, count, seconds)


def test_quick_e2e_and_cli_rows(tool, tmp_path):
    """tools/train.py (PNG and --image-cache) and tools/caption_pair.py as
    subprocesses, one stage; the tables go into a docs page."""
    out, doc = tmp_path / 'bench.json', tmp_path / 'benchmark.md'
    tool.main(['--quick', '--threads', '1', '--dtypes', 'fp32', '--sections', 'e2e',
               'cli', '--stages', 'captioning', '--data-dir', str(tmp_path / 'data'),
               '--out', str(out), '--write-docs', str(doc)])
    result = json.loads(out.read_text())
    assert [r['source'] for r in result['e2e']] == ['png', 'cache']
    for row in result['e2e']:  # the derived columns agree with the timings
        assert_rate(row['pairs_per_s'], row['batch'], row['iter_s'])
        assert row['data_share'] == pytest.approx(row['data_s'] / row['iter_s'],
                                                  abs=0.01)
        assert_rate(row['step_pairs_per_s'], row['batch'], row['step_s'])
        assert row['overhead_share'] == pytest.approx(
            1 - row['step_s'] / row['iter_s'], abs=2e-3)
    (cli, ) = result['cli']
    assert cli['pairs'] == 8
    assert cli['cli_over_model'] == pytest.approx(
        cli['cli_pairs_per_s'] / cli['model_pairs_per_s'], abs=2e-3)
    captions = (tmp_path / 'cli' / 'tiny_captions.jsonl').read_text().splitlines()
    assert len(captions) == 8 and all('caption' in json.loads(c) for c in captions)
    text = doc.read_text()
    assert 'tools/train.py end to end' in text and '**Command**' in text


def test_open_clip_peer_step(lib):
    row = lib.peer.clip_train_step_time('ViT-B-32', batch_size=2, device='cpu',
                                        dtype='fp32', steps=1)
    assert row['batch'] == 2
    assert_rate(row['pairs_per_s'], 2, row['step_s'])
