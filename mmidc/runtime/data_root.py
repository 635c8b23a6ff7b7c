"""A config's ``data_root`` (and the other roots its paths derive from) means
what it says (for config writers: docs/new_dataset.md).

The data-set bases write every path under a folder once, with a placeholder
(``data_root='{data_root}'`` in each loader's data set, ``vocab_file =
'{data_root}/caption_vocab_train.json'``, ``'{adapt_work_dir}/best_*.pth'``,
``'{shifted_root}/...'``): :func:`apply_data_root` (``tools/train.py``,
``tools/test.py``; the data-preparation tools call :func:`resolve_paths`)

1. makes ``data_root`` the one other folder that every loader's data set
   is explicitly set to read (``--cfg-options
   train_dataloader.dataset.data_root=... val_... test_...``);
2. fills every placeholder from the top-level values the config ends with
   (:func:`mmidc.utils.fill_placeholders`);
3. checks that every loader's data set (through wrapper data sets) and
   every evaluator with a ``data_root`` reads ``data_root`` or another
   top-level ``*_root`` folder (compared as folders: links resolved), and
   that an absolute ``ann_file`` a base wrote lies in its data set's
   folder; anything else is a ``ValueError`` naming ``data_root``, each
   setting that disagrees, and the fix.

Nothing but a placeholder is ever rewritten. An *explicit* value, one the
config file writes itself as a literal (read from its text,
:func:`own_settings`, never run) or one ``--cfg-options`` sets (pass them
as ``cfg_options``), never stops the run; one that reads another folder is
logged. Building a config with ``Runner.from_cfg`` yourself: call
``apply_data_root(cfg, config_file)`` first.
"""
import ast
import difflib
import logging
import os.path as osp
from typing import (Callable, Dict, Iterable, Iterator, List, Optional,
                    Tuple, Union)

from mmengine.logging import print_log

from mmidc.datasets.preparation.vocab_sources import leaf_datasets
from mmidc.utils.config_placeholders import (_where, fill_placeholders,
                                            has_placeholder)

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


def _loader_datasets(cfg) -> Iterator[Tuple[Path, dict]]:
    for key in LOADERS:
        loader = cfg.get(key)
        if isinstance(loader, dict) and isinstance(loader.get('dataset'),
                                                   dict):
            yield from leaf_datasets(loader['dataset'], (key, 'dataset'))


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


def _other_roots(cfg) -> Dict[str, str]:
    """Top-level ``*_root`` settings besides ``data_root``."""
    return {key: _norm(value) for key, value in cfg.items()
            if key.endswith('_root') and key != 'data_root'
            and isinstance(value, str)}


_OWN: Dict[Tuple[str, float], Dict[Tuple[str, ...], bool]] = {}


def config_tree(filename: str) -> Optional[ast.Module]:
    """The syntax tree of a config file's text (not run); None for a file
    that cannot be read or is not Python."""
    try:
        with open(filename, encoding='utf-8') as f:
            return ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None


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
        ``*_root``), holds a placeholder (``'{data_root}/x'``) or comes
        from a base (``_base_.x``, ``{{_base_.x}}``). A
        setting the file does not write is not in it. {} for a file that is
        not Python.
    """
    key = (osp.abspath(filename), osp.getmtime(filename))
    if key in _OWN:
        return _OWN[key]
    own: Dict[Tuple[str, ...], bool] = {}
    tree = config_tree(filename)
    if tree is None:
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
                if sub.id in ROOT_KEYS or sub.id.endswith('_root') or \
                        sub.id == '_base_':
                    return True
                if sub.id in names and sub.id not in seen and derived(
                        names[sub.id], seen | {sub.id}):
                    return True
            elif isinstance(sub, ast.Constant) and isinstance(
                    sub.value, str) and ('_base_.' in sub.value
                                         or has_placeholder(sub.value)):
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
        real = _real(ann_file)
        if not any(real == folder or real.startswith(folder.rstrip('/') + '/')
                   for folder in folders):
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
        "bases under configs/_base_/datasets/ write their loaders, "
        "vocab_file and cache as '{data_root}/...', docs/new_dataset.md; "
        "write a path of your own under it that way too), or set each "
        'setting above in your config or with --cfg-options (a value set '
        'there is kept as it is); an ann_file is written relative to its '
        "data_root ('train.jsonl'); a second folder a base reads on purpose "
        'goes in its own top-level setting whose name ends in _root '
        "(e.g. shifted_root = 'data/other') that the setting reads.")


def resolve_paths(cfg, source: Optional[str] = None,
                  cfg_options: Union[None, dict, Iterable[str]] = None
                  ) -> List[Tuple[str, str, str]]:
    """Steps 1 and 2 of :func:`apply_data_root`: ``data_root`` follows
    loaders moved as a whole, then every placeholder is filled. A
    ``data_root`` of ``--cfg-options`` that the loaders do not read (they
    read a literal folder, as in a run's own config in its work dir) is a
    warning naming both folders and the fix.

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in
            place.
        source (str, optional): The config file (what it writes itself is
            explicit); defaults to ``cfg.filename``.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            merged into ``cfg`` (explicit settings).

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each changed
        setting.

    Raises:
        ValueError: A placeholder with no top-level value, naming it.
    """
    changes = []
    data_root = cfg.get('data_root')
    explicit = explicit_settings(cfg, source, cfg_options)
    roots = _dataset_roots(cfg)
    others = {_real(v) for v in _other_roots(cfg).values()
              if not has_placeholder(v)}
    folders = {_real(v) for _, v in roots if isinstance(v, str)
               and not has_placeholder(v)}
    if (isinstance(data_root, str) and not has_placeholder(data_root)
            and roots and len(folders) == 1 and all(
                explicit(path) and isinstance(v, str) for path, v in roots)
            and not folders & others
            and folders != {_real(data_root)}):
        new = _norm(sorted(v for _, v in roots)[0])
        if 'data_root' in (cfg_options or ()):
            name = source or getattr(cfg, 'filename', None) or 'the config'
            print_log(
                f'--cfg-options data_root={data_root!r} is not used: every '
                f'loader of {name} reads {new!r}, a folder written as it is '
                "(a run's own config in its work dir writes every path out), "
                f'so the run reads {new!r} and data_root follows it. To read '
                f'{data_root!r}, give the config the run was made from (its '
                "paths are written '{data_root}/...' and follow data_root: "
                'the loaders, the image cache, the vocabulary and the '
                "evaluators' files)",
                logger='current', level=logging.WARNING)
        else:
            print_log(f'every loader reads {new!r}: data_root {data_root!r} '
                      'and the paths written from it follow',
                      logger='current')
        changes.append(('data_root', data_root, new))
        cfg.data_root = new
    changes += fill_placeholders(cfg)
    return changes


def check_root_key_typos(cfg, source: Optional[str] = None) -> None:
    """A top-level name of the config file close to a root setting
    (``data_root``, ``vocab_file``, ``adapt_work_dir``) that the file does
    not set itself (``data_rot = ...``) is a ``KeyError`` naming the file,
    the name and the setting: the base's value would be used without a word.
    Names ending in ``_root`` (a second folder on purpose) are not checked.

    Args:
        cfg (Config): The config.
        source (str, optional): The config file; defaults to
            ``cfg.filename``.
    """
    source = source or getattr(cfg, 'filename', None)
    tree = config_tree(source) if source else None
    if tree is None:
        return
    written = {target.id for node in tree.body if isinstance(node, ast.Assign)
               for target in node.targets if isinstance(target, ast.Name)}
    for key in sorted(written - set(ROOT_KEYS)):
        if key.endswith('_root'):
            continue
        close = difflib.get_close_matches(key, ROOT_KEYS, n=1, cutoff=0.85)
        if close and close[0] not in written:
            raise KeyError(
                f'{source}: config key {key!r} is not a setting mmidc reads; '
                f'did you mean {close[0]!r}? This file does not set '
                f'{close[0]}, so its base\'s value {cfg.get(close[0])!r} is '
                'used (docs/new_dataset.md).')


def apply_data_root(cfg, source: Optional[str] = None,
                    cfg_options: Union[None, dict, Iterable[str]] = None
                    ) -> List[Tuple[str, str, str]]:
    """Fill the placeholders of a config from its roots, check that its
    data sets read ``data_root`` (module docstring), and set its ``'auto'``
    loader settings for this machine
    (:func:`~mmidc.runtime.loader_setup.resolve_loader_defaults`).

    Args:
        cfg (Config): The config (after ``--cfg-options``), changed in place.
        source (str, optional): The config file (what it writes itself is
            explicit); defaults to ``cfg.filename``.
        cfg_options (dict | Iterable[str], optional): The ``--cfg-options``
            merged into ``cfg``: the settings they name are explicit.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each changed
        setting.

    Raises:
        KeyError: a misspelt root setting (:func:`check_root_key_typos`).
        ValueError: a data set that reads another folder
            (:func:`check_data_roots`).
    """
    check_root_key_typos(cfg, source)
    changes = resolve_paths(cfg, source, cfg_options)
    check_data_roots(cfg, source, cfg_options)
    from .loader_setup import resolve_loader_defaults
    resolve_loader_defaults(cfg)
    return changes
