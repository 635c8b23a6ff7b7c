"""The product apart from the lab: no module of ``mmidc`` imports the lab
(``mmidc_lab``), a project, ``tools`` or the tests; the lab runs mmidc's
commands as modules (``python -m ...``), never a ``tools/`` script, and never
computes the root of a checkout (it runs where it is started). Each check is
also run on a sample that breaks it."""
import ast
import re
from pathlib import Path
from typing import List

import pytest

from tests.helpers import REPO

#: Top-level packages of the repository that the installed package must not
#: import.
OUTSIDE = ('mmidc_lab', 'projects', 'tools', 'tests')
#: Functions that run a command line: the subprocess module's and the lab's
#: own runners (:mod:`mmidc_lab.experiments.stages`).
RUNNERS = {'run', 'Popen', 'call', 'check_call', 'check_output',
           'run_command', 'timed_stage'}
SCRIPT = re.compile(r'(^|/)tools/\S*\.(py|sh)$')


def sources(package: str) -> List[Path]:
    files = sorted((REPO / package).rglob('*.py'))
    assert files, f'no modules under {package}/'
    return files


def imports_from_outside(text: str) -> List[str]:
    """The imports of ``OUTSIDE`` packages in a module's source (``import
    X``, ``from X import``, ``importlib.import_module('X...')``)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or '']
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and _name(node.func) in ('import_module', '__import__')):
            names = [node.args[0].value]
        found += [f'line {node.lineno}: {name}' for name in names
                  if name.split('.')[0] in OUTSIDE]
    return found


def script_commands(text: str) -> List[str]:
    """Commands that run a script instead of a module: a list that starts
    with ``sys.executable`` and not ``'-m'``, or a ``tools/`` script path in
    a list or a runner's arguments (in line order)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.List) and node.elts and \
                _name(node.elts[0]) == 'executable':
            second = node.elts[1] if len(node.elts) > 1 else None
            if not (isinstance(second, ast.Starred) or (
                    isinstance(second, ast.Constant) and second.value == '-m')):
                found.append(f'line {node.lineno}: sys.executable without -m')
        parts = []
        if isinstance(node, (ast.List, ast.Tuple)):
            parts = node.elts
        elif isinstance(node, ast.Call) and _name(node.func) in RUNNERS:
            parts = [*node.args, *(k.value for k in node.keywords)]
        for part in parts:
            for leaf in ast.walk(part):
                if isinstance(leaf, ast.Constant) and isinstance(
                        leaf.value, str) and SCRIPT.search(leaf.value):
                    found.append(f'line {leaf.lineno}: {leaf.value}')
    return in_line_order(found)


def computed_roots(text: str) -> List[str]:
    """Paths climbed above a module's own folder from ``__file__``
    (``dirname(dirname(__file__))``, ``join(dirname(__file__), '..')``,
    ``Path(__file__).parents[...]`` / ``.parent.parent``), and changes of the
    working directory (in line order)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        line = getattr(node, 'lineno', '?')
        if isinstance(node, ast.Call) and _name(node.func) == 'dirname' and \
                node.args and _climbs(node.args[0]):
            found.append(f'line {line}: dirname(dirname(__file__))')
        elif isinstance(node, ast.Call) and _name(node.func) == 'join' and \
                any(_has_file(a) for a in node.args) and any(
                    isinstance(a, ast.Constant) and a.value == '..'
                    for a in node.args):
            found.append(f"line {line}: join(__file__, '..')")
        elif isinstance(node, ast.Attribute) and _has_file(node.value) and (
                node.attr == 'parents' or (
                    node.attr == 'parent' and isinstance(node.value,
                                                         ast.Attribute)
                    and node.value.attr == 'parent')):
            found.append(f'line {line}: Path(__file__).{node.attr}')
        elif isinstance(node, ast.Call) and _name(node.func) == 'chdir':
            found.append(f'line {line}: chdir')
    return in_line_order(found)


def in_line_order(found: List[str]) -> List[str]:
    """Findings sorted by line, each once."""
    return sorted(dict.fromkeys(found),
                  key=lambda f: int(f.split(':')[0].split()[1]))


def _name(node) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ''


def _has_file(node) -> bool:
    return any(isinstance(n, ast.Name) and n.id == '__file__'
               for n in ast.walk(node))


def _climbs(node) -> bool:
    """Whether ``node`` holds ``dirname(...)`` of an expression of
    ``__file__`` (so that a dirname around it climbs a second level)."""
    return any(isinstance(n, ast.Call) and _name(n.func) == 'dirname'
               and n.args and _has_file(n.args[0]) for n in ast.walk(node))


@pytest.mark.parametrize('path', sources('mmidc'),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_the_package_imports_nothing_of_the_repository(path):
    assert imports_from_outside(path.read_text()) == []


@pytest.mark.parametrize('path', sources('mmidc_lab'),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_the_lab_runs_modules_where_it_is_started(path):
    text = path.read_text()
    assert script_commands(text) == []
    assert computed_roots(text) == []


def test_the_import_check_finds_imports_from_outside():
    text = ('import os\n'
            'from . import models\n'
            'from mmidc.runtime import amp\n'
            'from mmidc_lab.checkout import git_commit\n'
            'import projects.from_scratch\n'
            'from tools import train\n'
            'import tests.helpers as h\n'
            "importlib.import_module('projects.tiny_clip')\n")
    assert imports_from_outside(text) == [
        'line 4: mmidc_lab.checkout', 'line 5: projects.from_scratch',
        'line 6: tools', 'line 7: tests.helpers', 'line 8: projects.tiny_clip']


def test_the_command_check_finds_scripts():
    text = ('cmd = [sys.executable, "-m", "mmidc.cli.train", cfg]\n'
            'cmd = [sys.executable, *PRETRAIN, "--epochs", "8"]\n'
            'cmd = [sys.executable, "tools/train.py", cfg]\n'
            'cmd = [sys.executable, osp.join(REPO, "tools", "test.py")]\n'
            'run_command(["bash", "tools/dist_train.sh", cfg])\n'
            'print_log(f"made by tools/generate.py {root}")\n')
    assert script_commands(text) == [
        'line 3: sys.executable without -m', 'line 3: tools/train.py',
        'line 4: sys.executable without -m', 'line 5: tools/dist_train.sh']


def test_the_root_check_finds_computed_roots():
    text = ('HERE = osp.dirname(osp.abspath(__file__))\n'
            'ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))\n'
            "UP = osp.join(osp.dirname(__file__), '..')\n"
            'REPO = Path(__file__).resolve().parents[2]\n'
            'TOP = Path(__file__).parent.parent\n'
            'os.chdir(ROOT)\n')
    assert computed_roots(text) == [
        'line 2: dirname(dirname(__file__))', "line 3: join(__file__, '..')",
        'line 4: Path(__file__).parents', 'line 5: Path(__file__).parent',
        'line 6: chdir']
