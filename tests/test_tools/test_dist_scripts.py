"""tools/dist_train.sh and tools/dist_test.sh check their arguments before
torchrun starts: a missing or wrong process count, a config or checkpoint
that is not there is a usage line naming it and exit status 2 (not
torchrun's ``ValueError: Unsupported nproc_per_node value``)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO


def run_script(script, args):
    env = {'PATH': '/usr/bin:/bin', 'PYTHON': sys.executable}
    return subprocess.run(['bash', str(REPO / 'tools' / script), *args],
                          env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize('script, args, message', [
    ('dist_train.sh', [], 'usage: bash .*dist_train.sh CONFIG NPROC'),
    ('dist_train.sh', ['{config}'], 'usage: bash .*dist_train.sh CONFIG NPROC'),
    ('dist_train.sh', ['{config}', '--amp'],
     "NPROC .*whole number of at least 1, got '--amp'"),
    ('dist_train.sh', ['{config}', '0'],
     "NPROC .*whole number of at least 1, got '0'"),
    ('dist_train.sh', ['missing.py', '2'], 'config not found: missing.py'),
    ('dist_test.sh', ['{config}', '{checkpoint}'],
     'usage: bash .*dist_test.sh CONFIG CHECKPOINT NPROC'),
    ('dist_test.sh', ['{config}', '{checkpoint}', 'two'],
     "NPROC .*whole number of at least 1, got 'two'"),
    ('dist_test.sh', ['{config}', 'missing.pth', '2'],
     'checkpoint not found: missing.pth'),
    ('dist_test.sh', ['missing.py', '{checkpoint}', '2'],
     'config not found: missing.py'),
    ('dist_test.sh', ['{config}', '{folder}', '2'],
     'is a folder, not a checkpoint'),
])
def test_wrong_arguments_are_named(files, script, args, message):
    config, checkpoint = files
    folder = str(Path(config).parent)
    args = [a.format(config=config, checkpoint=checkpoint, folder=folder)
            for a in args]
    result = run_script(script, args)
    assert result.returncode == 2, result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert 'nproc_per_node' not in result.stderr
