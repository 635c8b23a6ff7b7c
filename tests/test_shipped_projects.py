"""mmidc.shipped_projects: ``projects.<name>`` resolves to mmidc's projects
(installed, or the checkout's) from any working directory, and the core
package imports nothing from them."""
import ast
import os
import subprocess
import sys

from mmidc import shipped_projects
from mmidc.shipped_projects import ProjectsFinder, projects_dir
from tests.helpers import REPO


def _package(folder):
    folder.mkdir(parents=True)
    (folder / '__init__.py').write_text('')
    return folder


def test_the_installed_projects_come_first_then_the_checkout(tmp_path):
    mmidc_dir = tmp_path / 'checkout' / 'mmidc'
    mmidc_dir.mkdir(parents=True)
    assert projects_dir(str(mmidc_dir)) is None
    checkout = _package(tmp_path / 'checkout' / 'projects')
    # a `projects` next to an installed package (no setup.py) is not ours
    assert projects_dir(str(mmidc_dir)) is None
    (tmp_path / 'checkout' / 'setup.py').write_text('')
    assert projects_dir(str(mmidc_dir)) == str(checkout)
    installed = _package(mmidc_dir / '.mim' / 'projects')
    assert projects_dir(str(mmidc_dir)) == str(installed)


def test_the_finder_claims_only_the_top_level_name(tmp_path, monkeypatch):
    folder = _package(tmp_path / 'projects')
    monkeypatch.setattr(sys, 'path', [str(tmp_path / 'nothing_here')])
    finder = ProjectsFinder(str(folder))
    spec = finder.find_spec('projects')
    assert spec.origin == str(folder / '__init__.py')
    assert list(spec.submodule_search_locations) == [str(folder)]
    assert finder.find_spec('projects.recipe', [str(folder)]) is None
    assert finder.find_spec('mmidc') is None


def test_namespace_folders_elsewhere_join_ours(tmp_path, monkeypatch):
    """Other repositories' ``projects/`` (no ``__init__.py``, OpenMMLab's
    layout) stay importable beside mmidc's."""
    folder = _package(tmp_path / 'ours' / 'projects')
    theirs = tmp_path / 'theirs'
    (theirs / 'projects' / 'recipe').mkdir(parents=True)
    monkeypatch.setattr(sys, 'path', [str(theirs)])
    spec = ProjectsFinder(str(folder)).find_spec('projects')
    assert list(spec.submodule_search_locations) == [
        str(folder), str(theirs / 'projects')]


def test_a_regular_projects_package_elsewhere_wins(tmp_path, monkeypatch):
    """A ``projects`` package of the user's is never replaced by mmidc's."""
    folder = _package(tmp_path / 'ours' / 'projects')
    _package(tmp_path / 'user' / 'projects')
    monkeypatch.setattr(sys, 'path', [str(tmp_path / 'user')])
    assert ProjectsFinder(str(folder)).find_spec('projects') is None
    # the checkout's own folder found on the path is ours, not another's
    monkeypatch.setattr(sys, 'path', [str(tmp_path / 'ours')])
    assert ProjectsFinder(str(folder)).find_spec('projects') is not None


def test_installed_once():
    finder = shipped_projects.install_finder()
    # the checkout's projects/, or the editable install's .mim link to it
    assert finder in sys.meta_path
    assert os.path.realpath(finder.folder) == str(REPO / 'projects')
    assert shipped_projects.install_finder() is finder
    assert sum(isinstance(f, ProjectsFinder) for f in sys.meta_path) == 1


def test_projects_import_after_mmidc_without_the_checkout_on_the_path(tmp_path):
    """From another folder, the repository taken off ``sys.path`` once mmidc
    is imported, and a namespace `projects` folder of the user's in the
    working directory: the project still resolves to mmidc's, and the user's
    module beside it to the user's."""
    # the user's own, a namespace package with a module of its own
    (tmp_path / 'projects' / 'mine').mkdir(parents=True)
    (tmp_path / 'projects' / 'mine' / '__init__.py').write_text('NAME = 1\n')
    code = ('import os, sys\n'
            'import mmidc\n'
            f'repo = {str(REPO)!r}\n'
            'sys.path[:] = [p for p in sys.path\n'
            '               if os.path.abspath(p or ".") != repo]\n'
            'import projects.from_scratch as p\n'
            'from mmidc.registry import MODELS\n'
            'import projects.mine\n'
            'print(p.__file__, MODELS.get("ConvStem").__name__)\n')
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, '-c', code], cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    path, name = out.stdout.split()
    assert os.path.realpath(path) == str(
        REPO / 'projects' / 'from_scratch' / '__init__.py')
    assert name == 'ConvStem'


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.module


def test_the_core_package_imports_nothing_from_projects():
    found = [f'{path.relative_to(REPO)}: {name}'
             for path in sorted((REPO / 'mmidc').rglob('*.py'))
             for name in _imports(path)
             if name.split('.')[0] == shipped_projects.PACKAGE]
    assert not found, found
