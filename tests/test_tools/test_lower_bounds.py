"""tools/check_lower_bounds.sh: the lowest versions setup.cfg admits install
and pass a smoke subset (slow: it downloads torch; run with -m slow)."""
import os
import subprocess

import pytest

from tests.helpers import REPO


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_declared_lower_bounds_pass_the_smoke_subset():
    env = dict(os.environ, LOWER_VENV=str(REPO / '.venv-lower'))
    result = subprocess.run(
        ['bash', str(REPO / 'tools' / 'check_lower_bounds.sh'),
         'tests/test_models/test_generation', 'tests/test_configs'],
        cwd=str(REPO), env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'open_clip 2.26.1' in result.stdout and 'torch 2.6.0' in result.stdout
