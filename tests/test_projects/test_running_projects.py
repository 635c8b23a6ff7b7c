"""Projects run from a clone's root, as MMPretrain's: ``import mmidc``
installs no import hook and knows nothing of ``projects``; the working
directory (the clone's root) is where ``projects.<name>`` comes from, for
the commands and tools that read a project's config too. (That the package
imports nothing of the projects: tests/test_layering.py.)"""
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

CAPTIONER = 'projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py'


def python(code_or_args, cwd, timeout=300):
    """Run this interpreter in ``cwd`` with a user's environment (nothing of
    the repository on ``PYTHONPATH``)."""
    args = ['-c', code_or_args] if isinstance(code_or_args, str) else code_or_args
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    env.update(OMP_NUM_THREADS='1')
    return subprocess.run([sys.executable, *args], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_import_mmidc_adds_no_import_hook(tmp_path):
    """Outside a clone, ``projects`` is not importable after ``import
    mmidc``, and mmidc put no finder on ``sys.meta_path``."""
    out = python('import importlib.util, sys\n'
                 'before = list(sys.meta_path)\n'
                 'import mmidc\n'
                 'print([type(f).__module__ for f in sys.meta_path\n'
                 '       if f not in before])\n'
                 'print(importlib.util.find_spec("projects"))\n', tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    added, spec = out.stdout.splitlines()[-2:]
    assert 'mmidc' not in added
    assert spec == 'None'


def test_a_clone_imports_its_own_projects_from_its_root():
    out = python('import mmidc, projects.from_scratch as p\n'
                 'from mmidc.registry import MODELS\n'
                 'print(p.__file__, MODELS.get("ConditionedCaptioner").__name__)',
                 REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    path, name = out.stdout.split()[-2:]
    assert path == str(REPO / 'projects' / 'from_scratch' / '__init__.py')
    assert name == 'ConditionedCaptioner'


@pytest.mark.parametrize('tool,stops_at', [
    (['tools/caption_pair.py', CAPTIONER, 'missing.pth', 'a.png', 'b.png'],
     'checkpoint not found'),
    (['tools/demo/app.py', CAPTIONER, 'missing.pth'], 'checkpoint not found'),
    (['tools/dataset_converters/build_vocab.py', CAPTIONER], 'not found'),
    (['tools/dataset_converters/build_resized_cache.py', CAPTIONER], 'not found'),
    (['tools/dataset_converters/make_hard_negatives.py', CAPTIONER], 'not found'),
    (['tools/analysis_tools/change_type_probe.py', CAPTIONER], 'not found'),
    # an IDC-PCL tool: the captioner's config has no feature encoder
    (['tools/dataset_converters/extract_pair_features.py', CAPTIONER,
      '--cache-dir', 'missing_cache'], 'feature_encoder'),
], ids=lambda tool: os.path.basename(tool[0]) if isinstance(tool, list) else '')
def test_the_tools_read_a_projects_config_from_the_clone_root(tool, stops_at):
    """Run as a script (``sys.path[0]`` is the script's folder), each tool
    reads the project's config, whose ``custom_imports`` import
    ``projects.from_scratch`` from the working directory: it gets as far as
    the missing checkpoint or data set (or what the config lacks)."""
    out = python(tool, REPO)
    assert out.returncode != 0
    assert 'No module named' not in out.stderr, out.stderr[-3000:]
    assert stops_at in out.stderr + out.stdout, out.stderr[-3000:]
