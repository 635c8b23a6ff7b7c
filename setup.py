"""Build mmidc. The metadata is in setup.cfg; this file adds the two parts that
are decided at build time, as OpenMMLab packages do:

- ``mmcv``: MMPretrain needs it but does not declare it. A full ``mmcv`` (with
  its compiled ops) is kept where one is installed; otherwise
  ``mmcv-lite`` (the same package without the ops, all mmidc needs) is
  declared. ``MMIDC_MMCV=lite`` or ``MMIDC_MMCV=none`` decides instead (a
  wheel built for other machines: say which).
- ``mmidc/.mim``: ``configs/``, ``tools/`` and ``model-index.yml``, where
  ``mim`` (``mim search / train / test mmidc``) looks for them. A wheel gets
  copies, written into the build directory only (:class:`BuildPy`; an sdist
  carries the top-level folders, MANIFEST.in), so that building never
  writes into the sources; an editable install gets symlinks to the clone's
  folders (:func:`link_mim_files`, as MMPretrain's setup.py). ``projects/``
  is not shipped: a project is run from a clone's root.
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
from setuptools.command.build_py import build_py

ROOT = osp.dirname(osp.abspath(__file__))
MMCV_LITE = 'mmcv-lite>=2.0.0,<2.4.0'
#: Distributions that install the ``mmcv`` package, the full ones first.
MMCV_DISTRIBUTIONS = ('mmcv', 'mmcv-full', 'mmcv-lite')
MIM_FILES = ('configs', 'tools', 'model-index.yml')
#: What the copies leave out.
MIM_IGNORE = shutil.ignore_patterns('__pycache__', '*.pyc')

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


def link_mim_files(root: str = ROOT) -> None:
    """For an editable install (``develop``, ``editable_wheel``): symlinks
    ``mmidc/.mim/NAME`` to the clone's ``NAME`` for each of ``MIM_FILES``
    (copies where links cannot be made), and nothing else in that folder;
    any other command: nothing."""
    if not {'develop', 'editable_wheel'} & set(sys.argv):
        return
    mim_path = osp.join(root, 'mmidc', '.mim')
    os.makedirs(mim_path, exist_ok=True)
    for name in set(os.listdir(mim_path)) - set(MIM_FILES):
        _remove(osp.join(mim_path, name))  # what earlier versions put there
    for name in MIM_FILES:
        src = osp.join(root, name)
        dst = osp.join(mim_path, name)
        if not osp.exists(src):
            continue
        _remove(dst)
        try:
            os.symlink(osp.relpath(src, mim_path), dst)
        except OSError:  # e.g. no symlink privilege on Windows
            warnings.warn(f'could not link {dst}; copying {src}')
            _copy(src, dst)


def copy_mim_files(package_dir: str, root: str = ROOT) -> list:
    """Copy ``MIM_FILES`` of ``root`` into ``package_dir/.mim`` (the built
    ``mmidc`` package); returns the files written."""
    mim_path = osp.join(package_dir, '.mim')
    written = []
    for name in MIM_FILES:
        src, dst = osp.join(root, name), osp.join(mim_path, name)
        if not osp.exists(src):
            continue
        _remove(dst)
        os.makedirs(mim_path, exist_ok=True)
        _copy(src, dst)
        if osp.isdir(dst):
            written += [osp.join(d, f) for d, _, fs in os.walk(dst) for f in fs]
        else:
            written.append(dst)
    return written


def _remove(path: str) -> None:
    if osp.islink(path) or osp.isfile(path):
        os.remove(path)
    elif osp.isdir(path):
        shutil.rmtree(path)


def _copy(src: str, dst: str) -> None:
    if osp.isdir(src):
        shutil.copytree(src, dst, ignore=MIM_IGNORE)
    else:
        shutil.copyfile(src, dst)


class BuildPy(build_py):
    """``build_py`` that also puts ``MIM_FILES`` into the built package
    (``<build_lib>/mmidc/.mim``), what a wheel holds; an editable build
    links them instead (:func:`link_mim_files`)."""

    def run(self):
        super().run()
        if not getattr(self, 'editable_mode', False):
            copy_mim_files(osp.join(self.build_lib, 'mmidc'))


def install_requires() -> list:
    """setup.cfg's ``install_requires`` plus :func:`mmcv_requirements`
    (given to ``setup()``, whose arguments take precedence over setup.cfg)."""
    config = configparser.ConfigParser()
    config.read(osp.join(ROOT, 'setup.cfg'), encoding='utf-8')
    lines = config['options']['install_requires'].splitlines()
    requirements = [line.split('#')[0].strip() for line in lines]
    return [r for r in requirements if r] + mmcv_requirements()


if __name__ == '__main__':
    link_mim_files()
    setup(install_requires=install_requires(), cmdclass={'build_py': BuildPy})
