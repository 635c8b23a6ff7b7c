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
   that another root setting holds now is left alone);
2. loaders moved as a whole: when ``data_root`` is the config file's own but
   every loader's data set reads one other folder (``--cfg-options
   train_dataloader.dataset.data_root=... val_... test_...``), that folder
   becomes ``data_root`` and the paths derived from the old one follow;
3. then every loader's data set (through wrapper data sets) and every
   evaluator with a ``data_root`` must read ``data_root`` or a folder that
   another top-level ``*_root`` setting names (a deliberate second folder:
   ``shifted_root``, ``nabirds_root``); anything else stops the run with a
   ``ValueError`` naming ``data_root``, each setting that disagrees, and the
   fix.

A config given without its file gets steps 2 and 3. Building a config with
``Runner.from_cfg`` yourself: call ``apply_data_root(cfg, config_file)``
first.
"""
import os.path as osp
import re
from typing import Dict, Iterator, List, Optional, Tuple

from mmengine.logging import print_log

#: Top-level settings whose derived paths follow them.
ROOT_KEYS = ('data_root', 'vocab_file', 'adapt_work_dir')
LOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')
EVALUATORS = ('val_evaluator', 'test_evaluator')


def _norm(path: str) -> str:
    return path.rstrip('/') if len(path) > 1 else path


def _moved(value: str, rules: Dict[str, str]) -> Optional[str]:
    """``value`` with the longest matching old root replaced, else None."""
    best = None
    for old in rules:
        if value == old or value.startswith(old + '/'):
            if best is None or len(old) > len(best):
                best = old
    if best is None:
        return None
    return rules[best] + value[len(best):]


def _rebind(node, rules: Dict[str, str], where: str,
            changes: List[Tuple[str, str, str]]):
    """``node`` with every string under an old root moved (recursively;
    dicts and lists changed in place, tuples rebuilt)."""
    if isinstance(node, str):
        new = _moved(node, rules)
        if new is not None and new != node:
            changes.append((where, node, new))
            return new
        return node
    if isinstance(node, dict):
        for key in list(node.keys()):
            node[key] = _rebind(node[key], rules, f'{where}.{key}', changes)
        return node
    if isinstance(node, list):
        for i, item in enumerate(node):
            node[i] = _rebind(item, rules, f'{where}[{i}]', changes)
        return node
    if isinstance(node, tuple):
        return type(node)(_rebind(item, rules, f'{where}[{i}]', changes)
                          for i, item in enumerate(node))
    return node


def _datasets(node, where: str) -> Iterator[Tuple[str, dict]]:
    """``(where, dataset config)`` of every data set a loader reads:
    wrapper data sets (``dataset``, ``datasets``) unwrapped."""
    if not isinstance(node, dict):
        return
    inner = node.get('dataset')
    many = node.get('datasets')
    if isinstance(inner, dict):
        yield from _datasets(inner, where + '.dataset')
    elif isinstance(many, (list, tuple)):
        for i, item in enumerate(many):
            yield from _datasets(item, f'{where}.datasets[{i}]')
    else:
        yield where, node


def dataset_roots(cfg) -> List[Tuple[str, object]]:
    """``(setting, value)`` of each loader data set's ``data_root``."""
    found = []
    for key in LOADERS:
        loader = cfg.get(key)
        if not isinstance(loader, dict) or not isinstance(
                loader.get('dataset'), dict):
            continue
        for where, dataset in _datasets(loader['dataset'], key + '.dataset'):
            if 'data_root' in dataset:
                found.append((where + '.data_root', dataset['data_root']))
    return found


def evaluator_roots(cfg) -> List[Tuple[str, object]]:
    """``(setting, value)`` of each evaluator's ``data_root``."""
    found = []
    for key in EVALUATORS:
        evaluators = cfg.get(key)
        if isinstance(evaluators, dict):
            evaluators = [evaluators]
        for i, metric in enumerate(evaluators or []):
            if isinstance(metric, dict) and 'data_root' in metric:
                where = key if isinstance(cfg.get(key), dict) else f'{key}[{i}]'
                found.append((f'{where}.data_root', metric['data_root']))
    return found


def _other_roots(cfg) -> Dict[str, str]:
    """Top-level ``*_root`` settings besides ``data_root``."""
    return {key: _norm(value) for key, value in cfg.items()
            if key.endswith('_root') and key != 'data_root'
            and isinstance(value, str)}


def _root_keys(cfg) -> List[str]:
    return [key for key in cfg.keys() if key in ROOT_KEYS
            or (key.endswith('_root') and isinstance(cfg.get(key), str))]


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


def rebind_derived_paths(cfg, filename: Optional[str] = None
                         ) -> List[Tuple[str, str, str]]:
    """Steps 1 and 2 of :func:`apply_data_root`: move the paths derived from
    a root that has changed since they were derived.

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in
            place.
        filename (str, optional): Its file; defaults to ``cfg.filename``.
            Without one, only step 2 applies.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    filename = filename or getattr(cfg, 'filename', None)
    history = root_history(filename) if filename and osp.isfile(
        filename) else {}
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
    if isinstance(data_root, str) and _norm(data_root) == _norm(own or ''):
        # the loaders moved as a whole (--cfg-options on each loader)
        others = set(_other_roots(cfg).values())
        roots = {_norm(v) for _, v in dataset_roots(cfg)
                 if isinstance(v, str) and _norm(v) not in others}
        # (a folder that was data_root earlier in the chain is stale: step 1)
        if len(roots) == 1 and roots != {_norm(data_root)} \
                and _moved(next(iter(roots)), rules) is None:
            new = roots.pop()
            print_log(f'every loader reads {new!r}: data_root '
                      f'{data_root!r} and the paths derived from it follow',
                      logger='current')
            rules[_norm(data_root)] = new
    if not rules:
        return []
    changes = []
    for key in list(cfg.keys()):
        cfg[key] = _rebind(cfg[key], rules, key, changes)
    for where, old, new in changes:
        print_log(f'{where}: {old!r} -> {new!r} (follows the root set '
                  'last)', logger='current')
    return changes


def check_data_roots(cfg, source: Optional[str] = None) -> None:
    """Step 3 of :func:`apply_data_root`: every data set and evaluator reads
    ``data_root`` or another top-level ``*_root`` folder.

    Args:
        cfg (Config): The config.
        source (str, optional): The config file, for the message.

    Raises:
        ValueError: Naming ``data_root``, each setting that disagrees and
            the fix.
    """
    data_root = cfg.get('data_root')
    if not isinstance(data_root, str):
        return
    allowed = {_norm(data_root)} | set(_other_roots(cfg).values())
    wrong = [(where, value)
             for where, value in dataset_roots(cfg) + evaluator_roots(cfg)
             if not isinstance(value, str) or _norm(value) not in allowed]
    if not wrong:
        return
    lines = '\n'.join(f'  {where} = {value!r}' for where, value in wrong)
    name = f'{source}: ' if source else ''
    raise ValueError(
        f'{name}data_root is {data_root!r}, but these settings read another '
        f'folder:\n{lines}\n'
        'Fix: set data_root once at the top of your config (the data-set '
        'bases under configs/_base_/datasets/ derive their loaders, '
        'vocab_file and cache from it, docs/new_dataset.md), or set each '
        'setting above to data_root; a second folder that is meant goes in '
        'its own top-level setting whose name ends in _root '
        "(e.g. shifted_root = 'data/other') that the setting reads.")


def apply_data_root(cfg, source: Optional[str] = None
                    ) -> List[Tuple[str, str, str]]:
    """Re-derive the paths of a config from its roots, then check that its
    data sets read ``data_root`` (module docstring).

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in place.
        source (str, optional): The config file (its inheritance chain
            says what a root was before); defaults to ``cfg.filename``.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    changes = rebind_derived_paths(cfg, source)
    check_data_roots(cfg, source)
    return changes
