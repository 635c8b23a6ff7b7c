"""mmidc_lab.benchmarks.sections: each section on the tiny config (1 step each,
2 decoding steps), the cached and the reference-style decoding loops giving
the same tokens, the training and captioning commands (``python -m
mmidc.cli.train`` / ``.caption_pair``) as subprocesses, and the derived
columns against the timings they come from (the vocabulary section:
tests/test_lab/test_benchmark.py)."""
import json
from argparse import Namespace

import pytest

import mmidc  # noqa: F401  (registers the components)
import projects.from_scratch  # noqa: F401  (the tiny captioner's head)
from mmidc_lab.benchmarks import sections
from mmidc_lab.benchmarks.benchmark_run import resolve_settings
from tests.helpers import REPO
from tests.helpers.rates import assert_rate

pytestmark = pytest.mark.usefixtures('one_thread')


def quick_settings(tmp_path, **options):
    """The settings of ``benchmark.py --quick --dtypes fp32`` (and
    ``options``), data and outputs under ``tmp_path``."""
    args = dict(quick=True, gpu_rows=False, cpu_rows=False, device=None,
                threads=1, archs=None, dtypes=['fp32'], batch=None,
                stages=list(sections.STAGES), e2e_batch=None, steps=None,
                sections=None, skip=[], variants=None, num_scenes=None,
                image_size=None, checkpoint=None, cli_pairs=None,
                cli_batch=None, cli_worker_types=None, e2e_sources=None,
                decode_steps=2, eval=False,
                data_dir=str(tmp_path / 'data'),
                out=str(tmp_path / 'bench.json'), write_docs=None,
                docs_section=None)
    args.update(options)
    return resolve_settings(Namespace(**args))


@pytest.fixture(scope='module')
def quick(tmp_path_factory):
    return quick_settings(tmp_path_factory.mktemp('bench'))


def test_training_rows_and_mfu(quick):
    rows, _ = sections.measure_training(quick)
    assert {(r['stage'], r['dtype']) for r in rows} == {
        ('adaptation', 'fp32'), ('captioning', 'fp32')}
    peaks = sections.best_peaks(sections.measure_peaks(quick, 'start'))
    sections.add_mfu(rows, peaks)
    for row in rows:  # the derived columns agree
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
    variants = sections.measure_variants(quick, rows)
    assert {r['variant'] for r in variants} == {'baseline', 'fused', 'no-dropout'}


def test_loader_and_decoding_rows(quick):
    loader = sections.measure_loading(quick, sections.prepare_data(quick))
    assert {r['source'] for r in loader} == {'png', 'cache'}
    for row in loader:  # per core = steady rate / max(1, workers)
        steady = row['steady_pairs_per_s'] or 0
        assert row['steady_pairs_per_s_per_core'] == pytest.approx(
            steady / max(1, row['workers']), abs=0.051)
    inference = sections.measure_inference(quick)
    assert [r['batch'] for r in inference] == [1, 4]
    assert all(r['same_tokens'] for r in inference)


def test_e2e_and_cli_rows(tmp_path, monkeypatch):
    """The training command (--image-cache; the PNG run differs only in that
    option) and the captioning command (process workers) as subprocesses,
    one stage, run from the clone's root."""
    monkeypatch.chdir(REPO)
    settings = quick_settings(tmp_path, stages=['captioning'], e2e_sources=['cache'],
                              cli_worker_types=['process'])
    # 6 iterations, 3 logged windows (the steady state skips 2), not --quick's 12
    settings.e2e_iters = 6
    data_root = sections.prepare_data(settings)
    e2e, saved = [], []  # the caller's list, and its length at each save
    assert sections.measure_e2e(settings, data_root, rows=e2e,
                                on_row=lambda: saved.append(len(e2e))) is e2e
    assert saved == [1]  # each run saved as it finished
    assert [r['source'] for r in e2e] == ['cache']
    assert e2e[0]['config'] == ('projects/from_scratch/configs/'
                                'clip4idc-caption_tiny_synthetic-clevr-change.py')
    assert e2e[0]['options'] == '--image-cache'
    for row in e2e:  # the derived columns agree with the timings
        assert_rate(row['pairs_per_s'], row['batch'], row['iter_s'])
        assert row['data_share'] == pytest.approx(row['data_s'] / row['iter_s'],
                                                  abs=0.01)
        assert_rate(row['step_pairs_per_s'], row['batch'], row['step_s'])
        assert row['overhead_share'] == pytest.approx(
            1 - row['step_s'] / row['iter_s'], abs=2e-3)
        assert 0 < row['loop_s'] < row['wall_s']
        assert row['outside_loop_s'] == pytest.approx(row['wall_s'] - row['loop_s'],
                                                      abs=0.11)
    rows = sections.measure_cli(settings, data_root)
    assert [r['worker_type'] for r in rows] == ['process']
    for cli in rows:
        assert cli['command'].startswith(
            'python -m mmidc.cli.caption_pair projects/from_scratch/configs/')
        assert cli['pairs'] == 8
        assert f"--worker-type {cli['worker_type']}" in cli['command']
        assert cli['cli_over_model'] == pytest.approx(
            cli['cli_pairs_per_s'] / cli['model_pairs_per_s'], abs=2e-3)
    captions = (tmp_path / 'cli' / 'tiny_captions.jsonl').read_text().splitlines()
    assert len(captions) == 8 and all('caption' in json.loads(c) for c in captions)
