"""The package's layering, read from its source (AST): no model import runs
back up to the engine, the APIs or the tools; IDC-PCL shares nothing with
CLIP4IDC but ``heads/``, ``losses/`` and ``utils/``; no class borrows
another class's methods; only the tools, the experiments and the benchmarks
import the runtime room (``mmidc.runtime``), which imports none of them."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / 'mmidc'
MODELS = PACKAGE / 'models'
FILES = sorted(MODELS.rglob('*.py'))
#: The packages that may import ``mmidc.runtime`` (besides itself).
ABOVE_RUNTIME = ('runtime', 'experiments', 'benchmarks')


def imported_modules(path: Path, text: str = None):
    """Every module ``path`` (or ``text`` as if it were there) imports, at
    any depth, relative ones resolved."""
    package = ['mmidc'] + list(path.relative_to(MODELS.parent).parent.parts)
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = '.'.join(base + ([node.module] if node.module else []))
            yield module
            yield from (f'{module}.{alias.name}' for alias in node.names)


def imports_from(path: Path, rooms, tools: bool = False, text: str = None):
    """What ``path`` imports from ``mmidc.<room>`` for each of ``rooms`` (and
    from ``tools`` when ``tools``)."""
    wanted = [['mmidc', room] for room in rooms]
    return [m for m in imported_modules(path, text)
            if m.split('.')[:2] in wanted or (tools and m.split('.')[0] == 'tools')]


def test_finds_relative_and_nested_imports():
    text = ('from ..clip4idc.clip4idc_captioner import X\n'
            'def f():\n    from mmidc.apis import model_loading\n')
    found = set(imported_modules(MODELS / 'idc_pcl' / 'probe.py', text))
    assert 'mmidc.models.clip4idc.clip4idc_captioner' in found
    assert 'mmidc.apis' in found


@pytest.mark.parametrize('path', FILES, ids=lambda p: str(p.relative_to(MODELS)))
def test_no_import_runs_back_up(path):
    upward = imports_from(path, ('apis', 'engine', 'visualization'), tools=True)
    assert not upward, f'{path.name} imports {upward}'


def test_idc_pcl_imports_nothing_from_clip4idc():
    for path in (MODELS / 'idc_pcl').rglob('*.py'):
        bad = [m for m in imported_modules(path)
               if m.startswith('mmidc.models.clip4idc')]
        assert not bad, f'{path.name} imports {bad}'


def borrowed(text: str):
    """Class attributes taken from another class: ``x = Other.method`` or
    ``x = staticmethod(Other.method)``."""
    for cls in ast.walk(ast.parse(text)):
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in cls.body:
            if not isinstance(node, ast.Assign):
                continue
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id in ('staticmethod', 'classmethod') and value.args:
                value = value.args[0]
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                    and value.value.id[:1].isupper():
                yield f'{cls.name}.{ast.unparse(node.targets[0])} = {ast.unparse(node.value)}'


def test_no_class_borrows_another_class_methods():
    found = [b for path in FILES for b in borrowed(path.read_text())]
    assert not found, found
    probe = 'class A:\n    f = B.g\n    h = staticmethod(C.k)\n    n = 3\n'
    assert len(list(borrowed(probe))) == 2


def _room(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


@pytest.mark.parametrize(
    'path', [p for p in sorted(PACKAGE.rglob('*.py')) if _room(p) not in ABOVE_RUNTIME],
    ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_tools_experiments_and_benchmarks_import_the_runtime(path):
    bad = imports_from(path, ('runtime', ))
    assert not bad, f'{path.name} imports {bad}'


@pytest.mark.parametrize('path', sorted((PACKAGE / 'runtime').rglob('*.py')),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_runtime_imports_nothing_above_it(path):
    upward = imports_from(path, ('apis', 'experiments', 'benchmarks'), tools=True)
    assert not upward, f'{path.name} imports {upward}'


def test_the_runtime_rule_sees_a_dataset_importing_it():
    text = ('import tools.train\n'
            'def f():\n    from mmidc.runtime.loader_setup import auto_num_workers\n')
    probe = PACKAGE / 'datasets' / 'probe.py'
    assert imports_from(probe, ('runtime', ), text=text) == [
        'mmidc.runtime.loader_setup', 'mmidc.runtime.loader_setup.auto_num_workers']
    assert imports_from(probe, ('apis', ), tools=True, text=text) == ['tools.train']
