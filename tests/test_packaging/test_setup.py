"""setup.py's build-time parts: which mmcv a build declares, and the
``mmidc/.mim`` files mim reads (the install tests run them for real)."""
import os
import runpy
import subprocess
import sys

import pytest

from tests.helpers import REPO


@pytest.fixture
def setup_py():
    """setup.py's functions, without running ``setup()``."""
    return runpy.run_path(str(REPO / 'setup.py'), run_name='setup_py')


def write_dist_info(site: str, name: str, version: str = '2.2.0') -> None:
    info = os.path.join(site, f'{name}-{version}.dist-info')
    os.makedirs(info)
    with open(os.path.join(info, 'METADATA'), 'w') as f:
        f.write(f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n')


def test_mmcv_lite_only_where_no_full_mmcv_is_installed(setup_py, monkeypatch):
    fn = setup_py['mmcv_requirements']
    lite = setup_py['MMCV_LITE']
    globals_ = fn.__globals__
    monkeypatch.delenv('MMIDC_MMCV', raising=False)
    monkeypatch.delenv('UV', raising=False)
    for installed, expected in [(None, [lite]), ('mmcv-lite', [lite]),
                                ('mmcv', []), ('mmcv-full', [])]:
        monkeypatch.setitem(globals_, 'installed_mmcv', lambda i=installed: i)
        assert fn() == expected, installed
    # the user decides
    monkeypatch.setenv('MMIDC_MMCV', 'lite')
    assert fn() == [lite]
    monkeypatch.setenv('MMIDC_MMCV', 'none')
    monkeypatch.setitem(globals_, 'installed_mmcv', lambda: None)
    assert fn() == []
    monkeypatch.setenv('MMIDC_MMCV', 'full')
    with pytest.raises(ValueError, match='MMIDC_MMCV'):
        fn()
    # the check fails: nothing that could go over a full mmcv
    monkeypatch.setenv('MMIDC_MMCV', 'auto')

    def broken():
        raise subprocess.CalledProcessError(1, 'python')
    monkeypatch.setitem(globals_, 'installed_mmcv', broken)
    with pytest.warns(UserWarning, match='could not look for mmcv'):
        assert fn() == []


def test_a_build_that_cannot_see_the_target_declares_no_mmcv_lite(setup_py, monkeypatch):
    """uv and ``python -m build`` build in a throw-away environment: a full
    mmcv in the target is invisible there, so mmcv-lite is left to the `lite`
    extra."""
    fn = setup_py['mmcv_requirements']
    monkeypatch.delenv('MMIDC_MMCV', raising=False)
    monkeypatch.setitem(fn.__globals__, 'installed_mmcv', lambda: None)
    monkeypatch.setenv('UV', '/usr/bin/uv')
    monkeypatch.setattr(sys, 'prefix', '/root/.cache/uv/builds-v0/.tmpAbc')
    assert fn() == []
    monkeypatch.delenv('UV')
    monkeypatch.setattr(sys, 'prefix', '/tmp/build-env-x1y2')  # python -m build
    assert fn() == []
    monkeypatch.setattr(sys, 'prefix', '/home/me/venv')  # pip: the target itself
    assert fn() == [setup_py['MMCV_LITE']]


def test_installed_mmcv_reads_the_target_not_the_build_path(setup_py, tmp_path, monkeypatch):
    """pip's build environment puts its own paths on PYTHONPATH; the check
    runs the interpreter without them and sees what is installed in it."""
    site = tmp_path / 'build_env'
    write_dist_info(str(site), 'mmcv')
    monkeypatch.setenv('PYTHONPATH', str(site))
    found = setup_py['installed_mmcv']()
    import importlib.metadata as metadata
    names = [n for n in ('mmcv', 'mmcv-full', 'mmcv-lite') if _has(metadata, n)]
    assert found == (names[0] if names else None)
    # the same interpreter with that folder installed as a site sees it
    fake_python = tmp_path / 'python'
    fake_python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} "$@"\n')
    fake_python.chmod(0o755)
    assert setup_py['installed_mmcv'](str(fake_python)) == 'mmcv'


def _has(metadata, name):
    try:
        metadata.distribution(name)
        return True
    except metadata.PackageNotFoundError:
        return False


def test_mim_files_are_linked_for_editable_installs_and_copied_for_wheels(
        setup_py, tmp_path, monkeypatch):
    add = setup_py['add_mim_extension']
    monkeypatch.setitem(add.__globals__, 'ROOT', str(tmp_path))
    (tmp_path / 'configs' / 'family').mkdir(parents=True)
    (tmp_path / 'configs' / 'family' / 'a.py').write_text('x = 1\n')
    (tmp_path / 'tools').mkdir()
    (tmp_path / 'tools' / 'train.py').write_text('')
    (tmp_path / 'model-index.yml').write_text('Import: []\n')
    (tmp_path / 'projects' / 'recipe').mkdir(parents=True)
    (tmp_path / 'projects' / 'recipe' / '__init__.py').write_text('y = 2\n')
    mim = tmp_path / 'mmidc' / '.mim'

    monkeypatch.setattr(sys, 'argv', ['setup.py', 'egg_info'])
    add()
    assert not mim.exists()  # metadata only: nothing to ship

    monkeypatch.setattr(sys, 'argv', ['setup.py', 'editable_wheel'])
    add()
    for name in ('configs', 'tools', 'model-index.yml', 'projects'):
        assert (mim / name).is_symlink()
        assert (mim / name).resolve() == (tmp_path / name).resolve()

    monkeypatch.setattr(sys, 'argv', ['setup.py', 'bdist_wheel'])
    add()
    assert not (mim / 'configs').is_symlink()
    assert (mim / 'configs' / 'family' / 'a.py').read_text() == 'x = 1\n'
    assert not (mim / 'projects').is_symlink()
    assert (mim / 'projects' / 'recipe' / '__init__.py').read_text() == 'y = 2\n'
    assert (mim / 'model-index.yml').is_file() and not (mim / 'model-index.yml').is_symlink()
