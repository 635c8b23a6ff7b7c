"""Build mmidc. The metadata is in setup.cfg; this file adds the two parts that
are decided at build time, as OpenMMLab packages do:

- ``mmcv``: MMPretrain needs it but does not declare it. A full ``mmcv`` (with
  its compiled ops) is kept where one is installed; otherwise
  ``mmcv-lite`` (the same package without the ops, all mmidc needs) is
  declared. ``MMIDC_MMCV=lite`` or ``MMIDC_MMCV=none`` decides instead (a
  wheel built for other machines: say which).
- ``mmidc/.mim``: ``configs/``, ``tools/``, ``model-index.yml`` and
  ``projects/``, where ``mim`` (``mim search / train / test mmidc``) looks for
  them: copied into a wheel, symlinks in an editable install. The projects'
  configs import their components as ``projects.<name>``, which
  ``import mmidc`` resolves to ``mmidc/.mim/projects``
  (:mod:`mmidc.shipped_projects`).
"""
import configparser
import os
import os.path as osp
import shutil
import subprocess
import sys
import tempfile
import warnings

from setuptools import setup

ROOT = osp.dirname(osp.abspath(__file__))
MMCV_LITE = 'mmcv-lite>=2.0.0,<2.4.0'
#: Distributions that install the ``mmcv`` package, the full ones first.
MMCV_DISTRIBUTIONS = ('mmcv', 'mmcv-full', 'mmcv-lite')
MIM_FILES = ('configs', 'tools', 'model-index.yml', 'projects')

_FIND_MMCV = f"""
import importlib.metadata as metadata
for name in {MMCV_DISTRIBUTIONS!r}:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        continue
    print(name)
    break
"""


def installed_mmcv(python: str = sys.executable):
    """The distribution that provides ``mmcv`` to ``python``, or None.

    pip builds in an isolated environment, but with the interpreter it
    installs into: that interpreter, run without the build environment's
    ``PYTHONPATH``, sees the target's packages.
    """
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'PYTHONNOUSERSITE', 'PYTHONHOME')}
    found = subprocess.run([python, '-c', _FIND_MMCV], env=env,
                           cwd=tempfile.gettempdir(), capture_output=True,
                           text=True, timeout=120, check=True)
    return found.stdout.strip() or None


def in_separate_build_env() -> bool:
    """True when the build runs in an environment of its own rather than in
    the target's interpreter (uv's isolated builds, ``python -m build``), so
    that what is installed in the target cannot be seen from here."""
    uv_build = 'UV' in os.environ and 'builds-v' in sys.prefix
    return uv_build or osp.basename(sys.prefix).startswith('build-env-')


def mmcv_requirements() -> list:
    """``[MMCV_LITE]``, or ``[]`` where a full mmcv is to be kept."""
    choice = os.environ.get('MMIDC_MMCV', 'auto')
    if choice not in ('auto', 'lite', 'none'):
        raise ValueError(f'MMIDC_MMCV={choice!r}: use auto, lite or none')
    if choice != 'auto':
        return [MMCV_LITE] if choice == 'lite' else []
    if in_separate_build_env():
        # A full mmcv there would be overwritten by mmcv-lite: declare
        # nothing, and let the user choose (`mmidc[lite]` or MMIDC_MMCV).
        print('mmidc: the target environment is not visible from this build; '
              'mmcv-lite is not declared (install mmidc[lite] for it)')
        return []
    try:
        found = installed_mmcv()
    except (OSError, subprocess.SubprocessError) as error:
        warnings.warn(f'mmidc: could not look for mmcv ({error}); mmcv-lite '
                      'is not declared (install mmidc[lite] for it)')
        return []
    return [] if found in ('mmcv', 'mmcv-full') else [MMCV_LITE]


def add_mim_extension() -> None:
    """Put ``MIM_FILES`` into ``mmidc/.mim``: symlinks for an editable
    install, copies for a wheel or an sdist (as MMPretrain's setup.py)."""
    if {'develop', 'editable_wheel'} & set(sys.argv):
        mode = 'symlink'
    elif {'sdist', 'bdist_wheel', 'build'} & set(sys.argv):
        mode = 'copy'
    else:
        return
    mim_path = osp.join(ROOT, 'mmidc', '.mim')
    os.makedirs(mim_path, exist_ok=True)
    for name in MIM_FILES:
        src = osp.join(ROOT, name)
        dst = osp.join(mim_path, name)
        if not osp.exists(src):
            continue
        if osp.islink(dst) or osp.isfile(dst):
            os.remove(dst)
        elif osp.isdir(dst):
            shutil.rmtree(dst)
        if mode == 'symlink':
            try:
                os.symlink(osp.relpath(src, mim_path), dst)
                continue
            except OSError:  # e.g. no symlink privilege on Windows
                warnings.warn(f'could not link {dst}; copying {src}')
        if osp.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
                '__pycache__', '*.pyc'))
        else:
            shutil.copyfile(src, dst)


def install_requires() -> list:
    """setup.cfg's ``install_requires`` plus :func:`mmcv_requirements`
    (given to ``setup()``, whose arguments take precedence over setup.cfg)."""
    config = configparser.ConfigParser()
    config.read(osp.join(ROOT, 'setup.cfg'), encoding='utf-8')
    lines = config['options']['install_requires'].splitlines()
    requirements = [line.split('#')[0].strip() for line in lines]
    return [r for r in requirements if r] + mmcv_requirements()


if __name__ == '__main__':
    add_mim_extension()
    setup(install_requires=install_requires())
