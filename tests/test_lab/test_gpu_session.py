"""tools/analysis_tools/gpu_session.sh: its parts in order of priority under
one budget, each writing its results as it ends; the dry run (``--dry-run``:
the whole script on a CPU with tiny sizes) is how it is checked before a
GPU session."""
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

SCRIPT = REPO / 'tools' / 'analysis_tools' / 'gpu_session.sh'
#: What each part leaves in $OUT.
OUTPUTS = dict(tests=['tests.log', 'tests.xml'], step=['step.json', 'step.log'],
               e2e=['e2e.json', 'e2e.log'],
               cli=['cli.json', 'cli.log', 'cpu_cost.json', 'cpu_cost.log'],
               dtypes=['dtypes.json', 'dtypes.log'],
               scale=['scale.log', 'scale_results.tgz'])


def run(*args, env=None, timeout=30):
    return subprocess.run(['bash', str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


@pytest.mark.parametrize('arg', ['bench', 'everything', '--quick'])
def test_unknown_parts_are_errors(arg):
    result = run(arg)
    assert result.returncode == 2
    assert 'parts: tests step e2e cli dtypes scale' in result.stderr


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_dry_run_runs_every_part_and_writes_its_results(tmp_path):
    """About 13 minutes on a shared 2-core machine (15 with another dry run
    beside it): a budget that lets every part but the last, the scale study,
    finish there; the scale study may be stopped at the budget, as on a GPU,
    and must then still leave its partial results."""
    out = tmp_path / 'out'
    result = run('--dry-run', env=dict(OUT=str(out), PYTHON=sys.executable,
                                       BUDGET='1300'), timeout=1400)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    session = (out / 'session.log').read_text()
    for part, files in OUTPUTS.items():
        status = (out / f'{part}.status').read_text()
        stopped = ('rc=124 ', 'rc=130 ', 'rc=137 ') if part == 'scale' else ()
        assert status.startswith(('rc=0 ', ) + stopped), (part, status, session)
        for name in files:
            assert (out / name).is_file(), (part, name, session)
    docs = (out / 'benchmark.md').read_text()
    for part in ('step', 'e2e', 'cli', 'dtypes'):
        assert f'<!-- generated: gpu-{part} start -->' in docs
    assert 'BertAdam foreach' in (out / 'step.json').read_text()
    if (out / 'scale.status').read_text().startswith('rc=0 '):
        assert 'caption truth' in (out / 'scale.log').read_text()
