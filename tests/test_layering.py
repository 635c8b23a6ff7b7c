"""The package's layering, read from its source (AST): the rooms of
``mmidc`` stand on floors, and no module imports a room on its own floor or
above it (no import runs back up); the same holds for the rooms of
``mmidc.models``. IDC-PCL shares nothing with CLIP4IDC; no class borrows
another class's methods; no module of the package imports the tools, the
lab, the projects or the tests."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / 'mmidc'
MODELS = PACKAGE / 'models'
FILES = sorted(PACKAGE.rglob('*.py'))
MODEL_FILES = sorted(MODELS.rglob('*.py'))

#: The rooms of ``mmidc`` (sub-packages and top-level modules), floor by
#: floor from the ground: a module may import its own room and the rooms of
#: the floors below, nothing on its floor or above. ``mmidc/__init__.py`` is
#: the roof: it imports every room (the registration of ``import mmidc``).
FLOORS = (
    ('utils', 'registry', 'version', 'config_package'),  # the ground floor
    ('text', ),
    ('datasets', 'synthetic'),
    ('models', ),
    ('evaluation', ),
    ('engine', ),
    ('visualization', ),
    ('apis', ),
    ('runtime', ),
    ('cli', ),
)
#: The rooms of ``mmidc.models``, floor by floor, by the same rule
#: (``models/__init__.py`` is their roof).
MODEL_FLOORS = (
    ('generation', 'open_clip', 'data_preprocessors'),
    ('layers', ),
    ('heads', 'necks', 'losses'),
    ('clip4idc', 'idc_pcl'),
)
#: Top-level packages of the repository that the package never imports.
OUTSIDE = ('tools', 'mmidc_lab', 'projects', 'tests')


def imported_modules(path: Path, text: str = None):
    """Every module ``path`` (or ``text`` as if it were there) imports, at
    any depth, relative ones resolved."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    package = parts[:-1]  # a module's package; an __init__'s own
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = '.'.join(base + ([node.module] if node.module else []))
            yield module
            yield from (f'{module}.{alias.name}' for alias in node.names)


def _floor_of(floors) -> dict:
    return {room: level for level, rooms in enumerate(floors) for room in rooms}


def rooms_of(directory: Path):
    """The rooms of a package directory: its sub-packages and modules."""
    return sorted(p.stem for p in directory.iterdir()
                  if (p.suffix == '.py' and p.stem != '__init__')
                  or (p.is_dir() and (p / '__init__.py').is_file()))


def upward_imports(path: Path, root: Path, floors, text: str = None):
    """What ``path`` (under ``root``, a package directory whose rooms stand
    on ``floors``) imports from a room on its own floor or above."""
    floor = _floor_of(floors)
    rel = path.relative_to(root).parts
    if len(rel) == 1 and rel[0] == '__init__.py':
        return []  # the roof
    own = Path(rel[0]).stem
    prefix = list(root.relative_to(PACKAGE.parent).parts)
    found = []
    for module in imported_modules(path, text):
        parts = module.split('.')
        if parts[:len(prefix)] != prefix or len(parts) == len(prefix):
            continue
        room = parts[len(prefix)]
        if room != own and room in floor and floor[room] >= floor[own]:
            found.append(module)
    return found


def test_every_room_stands_on_a_floor():
    for directory, floors in ((PACKAGE, FLOORS), (MODELS, MODEL_FLOORS)):
        placed = [room for rooms in floors for room in rooms]
        assert len(placed) == len(set(placed)), placed
        missing = set(rooms_of(directory)) - set(placed)
        assert not missing, (f'{directory.name}: rooms on no floor: {missing} '
                             '(add them to the floors of tests/test_layering.py)')


def test_finds_relative_and_nested_imports():
    text = ('from ..clip4idc.clip4idc_captioner import X\n'
            'def f():\n    from mmidc.apis import model_loading\n')
    found = set(imported_modules(MODELS / 'idc_pcl' / 'probe.py', text))
    assert 'mmidc.models.clip4idc.clip4idc_captioner' in found
    assert 'mmidc.apis' in found


def test_the_floor_rule_sees_an_import_running_back_up():
    """Probes parsed from text (nothing is written into the package)."""
    text_probe = PACKAGE / 'text' / 'probe.py'
    upward = ('from mmidc.models.utils import read_checkpoint\n'
              'def f():\n    from ..datasets import vocab_sources\n')
    assert upward_imports(text_probe, PACKAGE, FLOORS, upward) == [
        'mmidc.models.utils', 'mmidc.models.utils.read_checkpoint',
        'mmidc.datasets', 'mmidc.datasets.vocab_sources']
    # the same floor: the synthetic set does not read the data sets' code
    assert upward_imports(PACKAGE / 'synthetic' / 'probe.py', PACKAGE, FLOORS,
                          'import mmidc.datasets.image_io\n') == [
        'mmidc.datasets.image_io']
    # down is fine, and so is the own room
    assert upward_imports(PACKAGE / 'evaluation' / 'metrics' / 'probe.py', PACKAGE,
                          FLOORS, 'from mmidc.synthetic import grade_records\n'
                          'from ..metrics import caption_truth\n'
                          'from mmidc.utils import read_checkpoint\n') == []
    # in the models: a head does not import an algorithm
    assert upward_imports(MODELS / 'heads' / 'probe.py', MODELS, MODEL_FLOORS,
                          'from ..clip4idc import CLIP4IDCBackbone\n'
                          'from ..layers import DecoderLayer\n') == [
        'mmidc.models.clip4idc', 'mmidc.models.clip4idc.CLIP4IDCBackbone']


@pytest.mark.parametrize('path', FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_runs_back_up(path):
    upward = upward_imports(path, PACKAGE, FLOORS)
    assert not upward, f'{path.relative_to(PACKAGE)} imports {upward}'


@pytest.mark.parametrize('path', MODEL_FILES,
                         ids=lambda p: str(p.relative_to(MODELS)))
def test_no_model_import_runs_back_up(path):
    upward = upward_imports(path, MODELS, MODEL_FLOORS)
    assert not upward, f'{path.relative_to(PACKAGE)} imports {upward}'


def outside_imports(path: Path, text: str = None):
    """What ``path`` imports from the repository's other top-level packages."""
    return [m for m in imported_modules(path, text) if m.split('.')[0] in OUTSIDE]


@pytest.mark.parametrize('path', FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_package_imports_nothing_outside_it(path):
    outside = outside_imports(path)
    assert not outside, f'{path.relative_to(PACKAGE)} imports {outside}'


def test_the_outside_rule_sees_a_lab_import():
    text = 'import tools.train\ndef f():\n    from mmidc_lab.experiments import stages\n'
    assert outside_imports(PACKAGE / 'runtime' / 'probe.py', text) == [
        'tools.train', 'mmidc_lab.experiments', 'mmidc_lab.experiments.stages']


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
    found = [b for path in MODEL_FILES for b in borrowed(path.read_text())]
    assert not found, found
    probe = 'class A:\n    f = B.g\n    h = staticmethod(C.k)\n    n = 3\n'
    assert len(list(borrowed(probe))) == 2
