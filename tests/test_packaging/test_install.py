"""mmidc installed as a user installs it, each time into a fresh virtual
environment (no system site-packages), from a copy of the sources:

- ``pip install .``: mmcv-lite comes with it; the package imports, the
  sources are left as they were (no ``mmidc/.mim`` copies), ``mim search
  mmidc`` works from a folder outside the sources with the configs shipped
  in the wheel, and ``mim train / test mmidc`` run the from-scratch
  project's tiny config from the clone's root (projects are not shipped:
  ``projects.from_scratch`` is the clone's);
- ``pip install -e .`` next to a full mmcv (a stand-in ``mmcv`` distribution):
  the full mmcv is kept, mmcv-lite is not installed over it, and
  ``mmidc/.mim`` links to the clone's configs and tools.

torch and torchvision are put into each environment first by uv, from its
cache (the versions pip would pick, in setup.cfg's ranges; pip keeps them),
and openmim is added by uv as a user's tool: pip resolves and installs
everything else (``--no-compile``: byte-code is written at first import
instead). Slow (minutes, mostly pip), so marked ``slow``; marked
``install`` too, which tools/run_tests.sh (CI) includes.
"""
import base64
import configparser
import hashlib
import importlib.util
import os
import os.path as osp
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.helpers.tiny_synthetic_run import (cfg_options_args,
                                              make_tiny_synthetic,
                                              tiny_overrides)

pytestmark = [pytest.mark.slow, pytest.mark.install, pytest.mark.timeout(1500)]

#: What a clone needs to build mmidc.
SOURCES = ('setup.py', 'setup.cfg', 'MANIFEST.in', 'README.md',
           'model-index.yml', 'mmidc', 'configs', 'tools', 'projects')
TINY_NAME = 'clip4idc-adapt_tiny_synthetic-clevr-change'


def clean_env(**extra) -> dict:
    """The environment of a user's shell: nothing of this test session's
    venv or of the repository on the paths."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'VIRTUAL_ENV', 'PYTHONHOME')}
    env.update(OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', CUDA_VISIBLE_DEVICES='',
               PIP_DISABLE_PIP_VERSION_CHECK='1', **extra)
    return env


def run(cmd, cwd, timeout=900, **env):
    start = time.time()
    result = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=clean_env(**env),
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f'{" ".join(map(str, cmd))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}')
    print(f'[{time.time() - start:5.1f} s] {" ".join(map(str, cmd))[:150]}', flush=True)
    return result.stdout


def copy_sources(dst: Path) -> Path:
    dst.mkdir()
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns(
                '__pycache__', '*.pyc', '.mim'))
        else:
            shutil.copy2(src, dst / name)
    return dst


def torch_requirements():
    cfg = configparser.ConfigParser()
    cfg.read(REPO / 'setup.cfg')
    return [line.strip() for line in cfg['options']['install_requires'].splitlines()
            if line.strip().startswith(('torch>', 'torch<', 'torchvision'))]


def uv_binary():
    for candidate in (osp.join(osp.dirname(sys.executable), 'uv'), shutil.which('uv')):
        if candidate and osp.isfile(candidate):
            return candidate
    return None


def fresh_venv(path: Path, tmp_path: Path) -> Path:
    """A new environment with pip, and torch + torchvision."""
    uv = uv_binary()
    if uv:
        run([uv, 'venv', '-q', '--seed', '--python', sys.executable, path], tmp_path)
        run([uv, 'pip', 'install', '-q', '--python', path / 'bin' / 'python',
             *torch_requirements()], tmp_path)
    else:
        run([sys.executable, '-m', 'venv', path], tmp_path)
        run([path / 'bin' / 'python', '-m', 'pip', 'install', '-q',
             *torch_requirements()], tmp_path)
    return path / 'bin' / 'python'


def add_openmim(python: Path, tmp_path: Path) -> None:
    uv = uv_binary()
    if uv:
        run([uv, 'pip', 'install', '-q', '--python', python, 'openmim'], tmp_path)
    else:
        run([python, '-m', 'pip', 'install', '-q', 'openmim'], tmp_path)


def distributions(python: Path, cwd: Path) -> dict:
    out = run([python, '-c', 'import importlib.metadata as m\n'
               'for d in m.distributions(): print(d.metadata["Name"].lower(), d.version)'],
              cwd)
    return dict(line.split() for line in out.splitlines() if line.strip())


def full_mmcv_stand_in(folder: Path) -> Path:
    """A wheel of a distribution named ``mmcv`` (what a full mmcv install is)
    holding this session's ``mmcv`` package plus a marker file."""
    package = Path(importlib.util.find_spec('mmcv').origin).parent
    import mmcv
    version = mmcv.__version__
    files = {}
    for path in package.rglob('*'):
        if path.is_file() and '__pycache__' not in path.parts:
            files[f'mmcv/{path.relative_to(package).as_posix()}'] = path.read_bytes()
    files['mmcv/FULL_MMCV_STAND_IN'] = b'kept\n'
    info = f'mmcv-{version}.dist-info'
    files[f'{info}/METADATA'] = (f'Metadata-Version: 2.1\nName: mmcv\n'
                                 f'Version: {version}\n').encode()
    files[f'{info}/WHEEL'] = (b'Wheel-Version: 1.0\nGenerator: mmidc-tests\n'
                              b'Root-Is-Purelib: true\nTag: py3-none-any\n')
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=')
        record.append(f'{name},sha256={digest.decode()},{len(data)}')
    record.append(f'{info}/RECORD,,')
    files[f'{info}/RECORD'] = ('\n'.join(record) + '\n').encode()
    wheel = folder / f'mmcv-{version}-py3-none-any.whl'
    with zipfile.ZipFile(wheel, 'w') as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def test_pip_install_imports_trains_and_serves_mim(tmp_path):
    src = copy_sources(tmp_path / 'src')
    python = fresh_venv(tmp_path / 'venv', tmp_path)
    run([python, '-m', 'pip', 'install', '-q', '--no-compile', src], tmp_path)
    assert not (src / 'mmidc' / '.mim').exists()  # built in build/ only

    installed = distributions(python, tmp_path)
    assert 'mmcv-lite' in installed and 'mmcv' not in installed, installed
    run([python, '-m', 'pip', 'check'], tmp_path)
    where = run([python, '-c', 'import mmidc, mmcv; print(mmidc.__file__)'], tmp_path)
    assert where.strip().startswith(str(tmp_path / 'venv')), where

    add_openmim(python, tmp_path)
    mim = python.parent / 'mim'
    outside = tmp_path / 'elsewhere'
    outside.mkdir()
    # the projects are not shipped: outside a clone there is none
    project = run([python, '-c', 'import mmidc, importlib.util; '
                   'print(importlib.util.find_spec("projects"))'], outside)
    assert project.strip() == 'None', project
    found = run([mim, 'search', 'mmidc'], outside)
    assert 'clip4idc-caption_vit-b32_clevr-change' in found

    # a project's config runs from the clone's root, the installed mmidc
    # with the clone's projects/
    data_root = make_tiny_synthetic(str(tmp_path / 'synthetic'))
    options = cfg_options_args(tiny_overrides(data_root))
    config = f'projects/from_scratch/configs/{TINY_NAME}.py'
    run([mim, 'train', 'mmidc', config, '--work-dir', outside / 'work',
         *options], src)
    checkpoint = outside / 'work' / 'epoch_1.pth'
    assert checkpoint.is_file()
    run([mim, 'test', 'mmidc', config, '--checkpoint', checkpoint,
         '--work-dir', outside / 'test', *options], src)
    assert (outside / 'test' / 'test_scores.json').is_file()


def test_editable_install_keeps_a_full_mmcv(tmp_path):
    src = copy_sources(tmp_path / 'src')
    python = fresh_venv(tmp_path / 'venv', tmp_path)
    run([python, '-m', 'pip', 'install', '-q', '--no-deps',
         full_mmcv_stand_in(tmp_path)], tmp_path)
    run([python, '-m', 'pip', 'install', '-q', '--no-compile', '-e', src], tmp_path)

    installed = distributions(python, tmp_path)
    assert 'mmcv' in installed and 'mmcv-lite' not in installed, installed
    marker = run([python, '-c', 'import mmcv, os; print(os.path.isfile(os.path.join('
                  'os.path.dirname(mmcv.__file__), "FULL_MMCV_STAND_IN")))'], tmp_path)
    assert marker.strip() == 'True', 'the full mmcv was overwritten'
    run([python, '-c', 'import mmidc'], tmp_path)

    # editable: mmidc/.mim links to the sources, next to the imported package
    assert (src / 'mmidc' / '.mim' / 'configs').is_symlink()
    assert not (src / 'mmidc' / '.mim' / 'projects').exists()
    found = run([python, '-c', 'import mmidc, os; print(os.path.realpath(os.path.join('
                 'os.path.dirname(mmidc.__file__), ".mim", "model-index.yml")))'], tmp_path)
    assert found.strip() == str((src / 'model-index.yml').resolve())
