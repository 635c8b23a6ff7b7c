"""setup.py's build-time parts: which mmcv a build declares, and the
``mmidc/.mim`` files mim reads: linked in an editable install, copied into
a wheel's build directory only (the install tests run pip for real)."""
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


def test_mim_files_are_linked_for_editable_installs_only(setup_py, tmp_path,
                                                         monkeypatch):
    link = setup_py['link_mim_files']
    (tmp_path / 'configs' / 'family').mkdir(parents=True)
    (tmp_path / 'configs' / 'family' / 'a.py').write_text('x = 1\n')
    (tmp_path / 'tools').mkdir()
    (tmp_path / 'model-index.yml').write_text('Import: []\n')
    (tmp_path / 'projects' / 'recipe').mkdir(parents=True)
    mim = tmp_path / 'mmidc' / '.mim'
    for command in ('egg_info', 'bdist_wheel', 'sdist', 'build', 'build_py'):
        monkeypatch.setattr(sys, 'argv', ['setup.py', command])
        link(str(tmp_path))
        assert not mim.exists(), command  # nothing written into the sources

    mim.mkdir(parents=True)
    os.symlink('../../projects', mim / 'projects')  # an earlier version's
    monkeypatch.setattr(sys, 'argv', ['setup.py', 'editable_wheel'])
    link(str(tmp_path))
    assert sorted(os.listdir(mim)) == ['configs', 'model-index.yml', 'tools']
    for name in ('configs', 'tools', 'model-index.yml'):
        assert (mim / name).is_symlink()
        assert (mim / name).resolve() == (tmp_path / name).resolve()


#: What a clone builds mmidc from.
SOURCES = ('setup.py', 'setup.cfg', 'MANIFEST.in', 'README.md',
           'model-index.yml', 'mmidc', 'configs', 'tools', 'projects')


@pytest.fixture
def clone(tmp_path):
    """A copy of the clone's sources, with the links an editable install
    leaves in ``mmidc/.mim``."""
    import shutil
    src = tmp_path / 'clone'
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns(
                '__pycache__', '*.pyc', '.mim'))
        else:
            shutil.copy2(REPO / name, src / name)
    mim = src / 'mmidc' / '.mim'
    mim.mkdir()
    for name in ('configs', 'tools', 'model-index.yml', 'projects'):
        os.symlink(f'../../{name}', mim / name)
    return src


def _build(clone, *command):
    out = subprocess.run([sys.executable, 'setup.py', '-q', *command],
                         cwd=str(clone), capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, MMIDC_MMCV='none'))
    assert out.returncode == 0, out.stderr[-3000:]


def test_a_wheel_holds_copies_the_sources_do_not(clone, tmp_path):
    """bdist_wheel writes the mim files into the build directory: the wheel
    holds configs, tools and model-index.yml under mmidc/.mim, not
    projects; the clone's mmidc/.mim keeps its links (no copies)."""
    import zipfile
    before = sorted(os.listdir(clone / 'mmidc' / '.mim'))
    _build(clone, 'bdist_wheel', '-d', str(tmp_path / 'dist'))
    mim = clone / 'mmidc' / '.mim'
    assert sorted(os.listdir(mim)) == before
    assert all((mim / name).is_symlink() for name in before)
    wheel, = (tmp_path / 'dist').glob('mmidc-*.whl')
    names = zipfile.ZipFile(wheel).namelist()
    assert 'mmidc/.mim/configs/clip4idc/clip4idc-caption_vit-b32_clevr-change.py' in names
    assert 'mmidc/.mim/tools/train.py' in names
    assert 'mmidc/.mim/model-index.yml' in names
    # the web demo, an application: beside tools/demo/app.py, not in mmidc
    assert {'mmidc/.mim/tools/demo/demo_app.py',
            'mmidc/.mim/tools/demo/static/index.html'} <= set(names)
    assert not [n for n in names if n.startswith('mmidc/apis/demo')]
    assert not [n for n in names if 'projects' in n.split('/')]
    assert not [n for n in names if '__pycache__' in n]


def test_an_sdist_carries_the_top_level_folders(clone, tmp_path):
    """An sdist holds configs/, tools/ and model-index.yml at its top (a
    wheel built from it copies them), not mmidc/.mim or projects/."""
    import tarfile
    _build(clone, 'sdist', '-d', str(tmp_path / 'dist'))
    archive, = (tmp_path / 'dist').glob('mmidc-*.tar.gz')
    parts = [n.split('/')[1:] for n in tarfile.open(archive).getnames()]
    tops = {p[0] for p in parts if p}
    assert {'configs', 'tools', 'model-index.yml', 'setup.py', 'mmidc'} <= tops
    assert 'projects' not in tops
    assert not [p for p in parts if '.mim' in p]


def test_the_clone_imports_its_own_project_after_a_build(clone, tmp_path):
    """After a wheel build in the clone, an edit to a project file is what
    the clone imports (run from its root, as its tests are)."""
    _build(clone, 'bdist_wheel', '-d', str(tmp_path / 'dist'))
    init = clone / 'projects' / 'from_scratch' / '__init__.py'
    init.write_text(init.read_text() + '\nEDITED_IN_THE_CLONE = True\n')
    out = subprocess.run(
        [sys.executable, '-c', 'import mmidc, projects.from_scratch as p; '
         'print(p.__file__, p.EDITED_IN_THE_CLONE, mmidc.__file__)'],
        cwd=str(clone), capture_output=True, text=True, timeout=600,
        env={k: v for k, v in os.environ.items() if k != 'PYTHONPATH'})
    assert out.returncode == 0, out.stderr[-3000:]
    project, edited, core = out.stdout.split()
    assert project == str(init) and edited == 'True'
    assert core == str(clone / 'mmidc' / '__init__.py')
