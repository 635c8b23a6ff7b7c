"""A config's ``data_root`` (and the other roots its paths derive from) means
what it says.

MMEngine reads a config file by running it, so a base that writes
``dataset=dict(data_root=data_root)`` or ``vocab_file = data_root + '/...'``
stores the *value* ``data_root`` had in that base; a child that sets only
``data_root`` would leave every loader, the vocabulary, the image cache and
the caption-truth root on the base's folder. :func:`apply_data_root`
(``tools/train.py`` and ``tools/test.py`` call it before anything is built;
the data-preparation tools call :func:`rebind_derived_paths`) re-derives:

1. every root setting (:data:`ROOT_KEYS` and any top-level ``*_root``) that
   held another value in a file of the config's inheritance chain (a child,
   or ``--cfg-options data_root=...``, changed it): every string of the
   config that is one of those earlier values, or a path under one, is moved
   to the current value (the longest earlier value that matches wins, so a
   child that sets both ``data_root`` and ``vocab_file`` gets both; a value
   that another root setting holds now is left alone; an absolute path is
   compared by the folder it names, so an absolute spelling of a relative
   earlier root moves too);
2. loaders moved as a whole: when ``data_root`` is the config file's own but
   every loader's data set reads one other folder (``--cfg-options
   train_dataloader.dataset.data_root=... val_... test_...``), that folder
   becomes ``data_root`` and the paths derived from the old one follow;
3. then every loader's data set (through wrapper data sets) and every
   evaluator with a ``data_root`` must read ``data_root`` or a folder that
   another top-level ``*_root`` setting names (a deliberate second folder:
   ``shifted_root``, ``nabirds_root``), compared as folders (an absolute and
   a relative spelling, a symbolic link and its target are one folder), and
   an absolute ``ann_file`` a base wrote must lie in its data set's folder;
   anything else stops the run with a ``ValueError`` naming ``data_root``,
   each setting that disagrees, and the fix.

An *explicit* value is never rewritten and never stops the run: one the
config file itself writes (not built from a root setting or a base:
``data_root='data/my_pairs'`` in a child's ``ConcatDataset``, not
``data_root=data_root``) or one ``--cfg-options`` sets (pass them as
``cfg_options``). One that reads another folder is logged. The settings a
file writes are read from its text (:func:`own_settings`), never run.

A config given without its file gets steps 2 and 3. Building a config with
``Runner.from_cfg`` yourself: call ``apply_data_root(cfg, config_file)``
first (without it, :class:`mmidc.engine.DataRootCheckHook`, a default hook,
warns about a loader that reads none of the config's folders).
"""
import ast
import os.path as osp
import re
from typing import (Callable, Dict, Iterable, Iterator, List, Optional,
                    Tuple, Union)

from mmengine.logging import print_log

#: Top-level settings whose derived paths follow them.
ROOT_KEYS = ('data_root', 'vocab_file', 'adapt_work_dir')
LOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')
EVALUATORS = ('val_evaluator', 'test_evaluator')

Path = Tuple[Union[str, int], ...]


def _norm(path: str) -> str:
    return path.rstrip('/') if len(path) > 1 else path


def _real(path: str) -> str:
    """The folder or file ``path`` names (a relative path from the current
    directory, where the run reads it; links resolved)."""
    return osp.realpath(osp.expanduser(path))


def _under(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip('/') + '/')


def _where(path: Path) -> str:
    """``('a', 'b', 1, 'c')`` -> ``'a.b[1].c'``."""
    text = ''
    for part in path:
        text += f'[{part}]' if isinstance(part, int) else (
            f'.{part}' if text else part)
    return text


def _moved(value: str, rules: Dict[str, str]) -> Optional[str]:
    """``value`` with the longest matching old root replaced, else None (an
    absolute ``value`` is also compared by the folder it names)."""
    best = None
    for old in rules:
        if value == old or value.startswith(old + '/'):
            if best is None or len(old) > len(best):
                best = old
    if best is not None:
        return rules[best] + value[len(best):]
    if not value.startswith('/'):
        return None
    real = _real(value)
    for old in rules:
        folder = _real(old)
        if _under(real, folder) and (best is None
                                     or len(folder) > len(_real(best))):
            best = old
    if best is None:
        return None
    return rules[best] + real[len(_real(best)):]


def _rebind(node, rules: Dict[str, str], path: Path,
            changes: List[Tuple[str, str, str]],
            explicit: Callable[[Path], bool]):
    """``node`` with every string under an old root moved (recursively;
    dicts and lists changed in place, tuples rebuilt); explicit values are
    left as they are."""
    if explicit(path):
        return node
    if isinstance(node, str):
        new = _moved(node, rules)
        if new is not None and new != node:
            changes.append((_where(path), node, new))
            return new
        return node
    if isinstance(node, dict):
        for key in list(node.keys()):
            node[key] = _rebind(node[key], rules, path + (key, ), changes,
                                explicit)
        return node
    if isinstance(node, list):
        for i, item in enumerate(node):
            node[i] = _rebind(item, rules, path + (i, ), changes, explicit)
        return node
    if isinstance(node, tuple):
        return type(node)(
            _rebind(item, rules, path + (i, ), changes, explicit)
            for i, item in enumerate(node))
    return node


def _datasets(node, path: Path) -> Iterator[Tuple[Path, dict]]:
    """``(path, dataset config)`` of every data set a loader reads:
    wrapper data sets (``dataset``, ``datasets``) unwrapped."""
    if not isinstance(node, dict):
        return
    inner = node.get('dataset')
    many = node.get('datasets')
    if isinstance(inner, dict):
        yield from _datasets(inner, path + ('dataset', ))
    elif isinstance(many, (list, tuple)):
        for i, item in enumerate(many):
            yield from _datasets(item, path + ('datasets', i))
    else:
        yield path, node


def _loader_datasets(cfg) -> Iterator[Tuple[Path, dict]]:
    for key in LOADERS:
        loader = cfg.get(key)
        if isinstance(loader, dict) and isinstance(loader.get('dataset'),
                                                   dict):
            yield from _datasets(loader['dataset'], (key, 'dataset'))


def _evaluator_roots(cfg) -> List[Tuple[Path, object]]:
    found = []
    for key in EVALUATORS:
        evaluators = cfg.get(key)
        single = isinstance(evaluators, dict)
        for i, metric in enumerate([evaluators] if single else (
                evaluators or [])):
            if isinstance(metric, dict) and 'data_root' in metric:
                path = (key, ) if single else (key, i)
                found.append((path + ('data_root', ), metric['data_root']))
    return found


def _dataset_roots(cfg) -> List[Tuple[Path, object]]:
    return [(path + ('data_root', ), dataset['data_root'])
            for path, dataset in _loader_datasets(cfg)
            if 'data_root' in dataset]


def dataset_roots(cfg) -> List[Tuple[str, object]]:
    """``(setting, value)`` of each loader data set's ``data_root``."""
    return [(_where(path), value) for path, value in _dataset_roots(cfg)]


def evaluator_roots(cfg) -> List[Tuple[str, object]]:
    """``(setting, value)`` of each evaluator's ``data_root``."""
    return [(_where(path), value) for path, value in _evaluator_roots(cfg)]


def _other_roots(cfg) -> Dict[str, str]:
    """Top-level ``*_root`` settings besides ``data_root``."""
    return {key: _norm(value) for key, value in cfg.items()
            if key.endswith('_root') and key != 'data_root'
            and isinstance(value, str)}


def _root_keys(cfg) -> List[str]:
    return [key for key in cfg.keys() if key in ROOT_KEYS
            or (key.endswith('_root') and isinstance(cfg.get(key), str))]


def _is_root_name(name: str) -> bool:
    return name in ROOT_KEYS or name.endswith('_root') or name == '_base_'


_OWN: Dict[Tuple[str, float], Dict[Tuple[str, ...], bool]] = {}


def own_settings(filename: str) -> Dict[Tuple[str, ...], bool]:
    """The settings a config file writes itself, read from its text (the
    file is not run; its bases are not read).

    Args:
        filename (str): The config file.

    Returns:
        dict: key path (``('train_dataloader', 'dataset', 'datasets', '1',
        'data_root')``, list items by their index) -> True where the file
        writes a value of its own (a literal, or built from names of its own
        that are no root setting), False where the value is built from a
        root setting (``data_root``, ``vocab_file``, ``adapt_work_dir``, a
        ``*_root``) or from a base (``_base_.x``, ``{{_base_.x}}``). A
        setting the file does not write is not in it. {} for a file that is
        not Python.
    """
    key = (osp.abspath(filename), osp.getmtime(filename))
    if key in _OWN:
        return _OWN[key]
    own: Dict[Tuple[str, ...], bool] = {}
    try:
        with open(filename, encoding='utf-8') as f:
            tree = ast.parse(f.read())
    except (SyntaxError, ValueError, UnicodeDecodeError):
        _OWN[key] = own
        return own
    names: Dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node.value

    def derived(expr: ast.AST, seen: frozenset = frozenset()) -> bool:
        for sub in ast.walk(expr):
            if isinstance(sub, ast.Name):
                if _is_root_name(sub.id):
                    return True
                if sub.id in names and sub.id not in seen and derived(
                        names[sub.id], seen | {sub.id}):
                    return True
            elif isinstance(sub, ast.Constant) and isinstance(
                    sub.value, str) and '_base_.' in sub.value:
                return True
        return False

    def walk(expr: ast.AST, path: Tuple[str, ...]):
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id == 'dict' and not expr.args):
            for keyword in expr.keywords:
                if keyword.arg is None:
                    own[path] = not derived(keyword.value)
                else:
                    walk(keyword.value, path + (keyword.arg, ))
        elif isinstance(expr, ast.Dict):
            for k, v in zip(expr.keys, expr.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    walk(v, path + (k.value, ))
                else:
                    own[path] = not derived(expr)
        elif isinstance(expr, (ast.List, ast.Tuple)) and not any(
                isinstance(e, ast.Starred) for e in expr.elts):
            for i, item in enumerate(expr.elts):
                walk(item, path + (str(i), ))
        else:
            own[path] = not derived(expr)

    def target_path(target: ast.AST) -> Optional[Tuple[str, ...]]:
        keys = []
        while isinstance(target, ast.Subscript):
            index = target.slice
            if not isinstance(index, ast.Constant):
                return None
            keys.insert(0, str(index.value))
            target = target.value
        return (target.id, *keys) if isinstance(target, ast.Name) else None

    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)):
                    values = node.value.elts if isinstance(
                        node.value, (ast.Tuple, ast.List)) and len(
                            node.value.elts) == len(target.elts) else None
                    for i, item in enumerate(target.elts):
                        path = target_path(item)
                        if path is None:
                            continue
                        if values is None:
                            own[path] = not derived(node.value)
                        else:
                            walk(values[i], path)
                else:
                    path = target_path(target)
                    if path is not None:
                        walk(node.value, path)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and \
                node.value is not None:
            path = target_path(node.target)
            if path is not None:
                own[path] = not derived(node.value) and not isinstance(
                    node, ast.AugAssign)
    _OWN[key] = own
    return own


def explicit_settings(cfg, filename: Optional[str] = None,
                      cfg_options: Union[None, dict, Iterable[str]] = None
                      ) -> Callable[[Path], bool]:
    """Whether a setting of ``cfg`` is explicit: written by the config file
    itself as a value of its own (:func:`own_settings`), or set by
    ``--cfg-options`` (the key or one above it).

    Args:
        cfg (Config): The config.
        filename (str, optional): Its file; defaults to ``cfg.filename``.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            (their keys count).

    Returns:
        callable: key path (``('val_dataloader', 'dataset', 'data_root')``)
        -> bool.
    """
    filename = filename or getattr(cfg, 'filename', None)
    own = own_settings(filename) if filename and osp.isfile(filename) else {}
    options = [tuple(key.split('.')) for key in (cfg_options or ())]

    def explicit(path: Path) -> bool:
        parts = tuple(str(part) for part in path)
        if any(parts[:len(key)] == key for key in options):
            return True
        for n in range(len(parts), 0, -1):
            if parts[:n] in own:
                return own[parts[:n]]
        return False

    return explicit


def config_chain(filename: Optional[str]) -> List[str]:
    """Every file of a config's inheritance tree, the config first (local
    files only; ``mmidc::``-style package bases and unreadable files are
    left to MMEngine, which reports them when it reads the config)."""
    from mmengine.config import Config
    files, todo = [], [filename] if filename else []
    while todo:
        path = todo.pop(0)
        if path in files or not osp.isfile(path):
            continue
        files.append(path)
        try:
            for base in Config._get_base_files(path):
                base_path, scope = Config._get_cfg_path(base, path)
                if scope is None:
                    todo.append(osp.normpath(base_path))
        except Exception:  # noqa: BLE001 - a file MMEngine reads itself
            continue
    return files


_ASSIGNS = re.compile(r'^(\w+)\s*=', re.M)


def root_history(filename: str) -> Dict[str, List[str]]:
    """The values each root setting has in the files of a config's
    inheritance chain (each file read on its own; only the files that
    assign a root setting are read).

    Args:
        filename (str): The config file.

    Returns:
        dict: root setting -> its values, the config file's own first.
    """
    history: Dict[str, List[str]] = {}
    for path in config_chain(filename):
        for key, value in _file_roots(path).items():
            if value not in history.get(key, []):
                history.setdefault(key, []).append(value)
    return history


_FILE_ROOTS: Dict[Tuple[str, float], Dict[str, str]] = {}


def _file_roots(path: str) -> Dict[str, str]:
    """The root settings of one config file read on its own ({} when the
    file assigns none); remembered per file and modification time."""
    from mmengine.config import Config
    key = (osp.abspath(path), osp.getmtime(path))
    if key not in _FILE_ROOTS:
        with open(path, encoding='utf-8') as f:
            assigned = {m.group(1) for m in _ASSIGNS.finditer(f.read())}
        roots = {}
        if any(name in ROOT_KEYS or name.endswith('_root')
               for name in assigned):
            cfg = Config.fromfile(path)
            roots = {name: cfg.get(name) for name in _root_keys(cfg)
                     if isinstance(cfg.get(name), str)}
        _FILE_ROOTS[key] = roots
    return _FILE_ROOTS[key]


def rebind_derived_paths(cfg, filename: Optional[str] = None,
                         cfg_options: Union[None, dict,
                                            Iterable[str]] = None
                         ) -> List[Tuple[str, str, str]]:
    """Steps 1 and 2 of :func:`apply_data_root`: move the paths derived from
    a root that has changed since they were derived (explicit values stay).

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in
            place.
        filename (str, optional): Its file; defaults to ``cfg.filename``.
            Without one, only step 2 applies.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            merged into ``cfg``: the settings they name are kept.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    filename = filename or getattr(cfg, 'filename', None)
    history = root_history(filename) if filename and osp.isfile(
        filename) else {}
    explicit = explicit_settings(cfg, filename, cfg_options)
    current = {key: _norm(cfg.get(key)) for key in _root_keys(cfg)
               if isinstance(cfg.get(key), str)}
    held = set(current.values())
    rules = {}
    for key, values in history.items():
        if key not in current:
            continue
        for value in values:
            old = _norm(value)
            if old != current[key] and old not in held:
                rules[old] = current[key]
    data_root = cfg.get('data_root')
    own = history.get('data_root', [data_root])[0]
    changes = []
    if isinstance(data_root, str) and _norm(data_root) == _norm(own or ''):
        # the loaders moved as a whole (--cfg-options on each loader)
        others = {_real(v) for v in _other_roots(cfg).values()}
        roots = {_norm(v) for _, v in _dataset_roots(cfg)
                 if isinstance(v, str) and _real(v) not in others}
        # (a folder that was data_root earlier in the chain is stale: step 1)
        if len({_real(root) for root in roots}) == 1 and \
                _real(next(iter(roots))) != _real(data_root) and \
                _moved(next(iter(roots)), rules) is None:
            new = sorted(roots)[0]
            print_log(f'every loader reads {new!r}: data_root '
                      f'{data_root!r} and the paths derived from it follow',
                      logger='current')
            rules[_norm(data_root)] = new
            changes.append(('data_root', data_root, new))
            cfg.data_root = new
    if not rules:
        return []
    for key in list(cfg.keys()):
        if key != 'data_root' or not changes:
            cfg[key] = _rebind(cfg[key], rules, (key, ), changes, explicit)
    for where, old, new in changes:
        print_log(f'{where}: {old!r} -> {new!r} (follows the root set '
                  'last)', logger='current')
    return changes


def check_data_roots(cfg, source: Optional[str] = None,
                     cfg_options: Union[None, dict, Iterable[str]] = None
                     ) -> None:
    """Step 3 of :func:`apply_data_root`: every data set and evaluator reads
    ``data_root`` or another top-level ``*_root`` folder, unless the setting
    is explicit (logged), and no absolute ``ann_file`` from a base lies
    outside its data set's folder.

    Args:
        cfg (Config): The config.
        source (str, optional): The config file, for the message and what
            it writes itself; defaults to ``cfg.filename``.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            merged into ``cfg`` (explicit settings).

    Raises:
        ValueError: Naming ``data_root``, each setting that disagrees and
            the fix.
    """
    data_root = cfg.get('data_root')
    if not isinstance(data_root, str):
        return
    explicit = explicit_settings(cfg, source, cfg_options)
    allowed = {_real(data_root)} | {
        _real(value) for value in _other_roots(cfg).values()}
    kept, wrong = [], []
    for path, value in _dataset_roots(cfg) + _evaluator_roots(cfg):
        if isinstance(value, str) and _real(value) in allowed:
            continue
        (kept if explicit(path) else wrong).append(
            f'  {_where(path)} = {value!r}')
    for path, dataset in _loader_datasets(cfg):
        ann_file = dataset.get('ann_file')
        if not isinstance(ann_file, str) or not osp.isabs(ann_file) or \
                explicit(path + ('ann_file', )):
            continue
        folders = set(allowed)
        if isinstance(dataset.get('data_root'), str):
            folders.add(_real(dataset['data_root']))
        if not any(_under(_real(ann_file), folder) for folder in folders):
            wrong.append(f'  {_where(path + ("ann_file", ))} = {ann_file!r} '
                         '(an absolute path outside its data set\'s '
                         f'data_root {dataset.get("data_root")!r})')
    name = f'{source or getattr(cfg, "filename", None) or "config"}: '
    if kept:
        lines = '\n'.join(kept)
        print_log(f'{name}data_root is {data_root!r}; these settings, set '
                  'in the config file or by --cfg-options, read another '
                  f'folder and are kept as they are:\n{lines}',
                  logger='current')
    if not wrong:
        return
    lines = '\n'.join(wrong)
    raise ValueError(
        f'{name}data_root is {data_root!r}, but these settings, which a '
        'base config wrote and neither your config nor --cfg-options sets, '
        f'read another folder:\n{lines}\n'
        'Fix: set data_root once at the top of your config (the data-set '
        'bases under configs/_base_/datasets/ derive their loaders, '
        'vocab_file and cache from it, docs/new_dataset.md), or set each '
        'setting above in your config or with --cfg-options (a value set '
        'there is kept as it is); an ann_file is written relative to its '
        "data_root ('train.jsonl'); a second folder a base reads on purpose "
        'goes in its own top-level setting whose name ends in _root '
        "(e.g. shifted_root = 'data/other') that the setting reads.")


def apply_data_root(cfg, source: Optional[str] = None,
                    cfg_options: Union[None, dict, Iterable[str]] = None
                    ) -> List[Tuple[str, str, str]]:
    """Re-derive the paths of a config from its roots, then check that its
    data sets read ``data_root`` (module docstring).

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in place.
        source (str, optional): The config file (its inheritance chain
            says what a root was before; what it writes itself is
            explicit); defaults to ``cfg.filename``.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            merged into ``cfg``: the settings they name are explicit.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    changes = rebind_derived_paths(cfg, source, cfg_options)
    check_data_roots(cfg, source, cfg_options)
    return changes
