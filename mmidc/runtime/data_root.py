"""A config's ``data_root`` (and the other roots its paths derive from) means
what it says.

MMEngine reads a config file by running it, so a base that writes
``dataset=dict(data_root=data_root)`` or ``vocab_file = data_root + '/...'``
stores the *value* ``data_root`` had in that base; a child that sets only
``data_root`` would leave every loader, the vocabulary, the image cache and
the caption-truth root on the base's folder. The data-set bases
(``configs/_base_/datasets/``) therefore record the roots they derived their
paths from::

    data_root = 'data/my_pairs'
    vocab_file = data_root + '/caption_vocab_train.json'
    derived_from = dict(data_root=data_root, vocab_file=vocab_file)

and :func:`apply_data_root` (``tools/train.py``, ``tools/test.py`` and the
data-preparation tools call it before anything is built) re-derives:

1. every root setting named in ``derived_from`` (:data:`ROOT_KEYS`, or
   any other top-level path such as ``shifted_root``) whose
   top-level value differs from the recorded one (a child, or
   ``--cfg-options data_root=...``, changed it): every string of the config
   that is the recorded root or a path under it is moved to the new root
   (the longest recorded root that matches wins, so a child that sets both
   ``data_root`` and ``vocab_file`` gets both);
2. loaders moved as a whole: when ``data_root`` is unchanged but every
   loader's data set reads one other folder (``--cfg-options
   train_dataloader.dataset.data_root=... val_... test_...``), that folder
   becomes ``data_root`` and the paths derived from the old one follow;
3. then every loader's data set (through wrapper data sets) and every
   evaluator with a ``data_root`` must read ``data_root`` or a folder that
   another top-level ``*_root`` setting names (a deliberate second folder:
   ``shifted_root``, ``nabirds_root``); anything else stops the run with a
   ``ValueError`` naming ``data_root``, each setting that disagrees, and the
   fix.

A config without ``derived_from`` gets step 3 only. Building a config with
``Runner.from_cfg`` yourself: call :func:`apply_data_root` on it first.
"""
from typing import Dict, Iterator, List, Optional, Tuple

from mmengine.logging import print_log

#: Top-level settings whose derived paths follow them.
ROOT_KEYS = ('data_root', 'vocab_file', 'adapt_work_dir')
#: The top-level record of the roots a config's paths were derived from.
MARKER = 'derived_from'
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


def rebind_derived_paths(cfg) -> List[Tuple[str, str, str]]:
    """Steps 1 and 2 of :func:`apply_data_root`: move the paths derived from
    a root that has changed since they were derived.

    Args:
        cfg (Config): The config, changed in place.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    marker = cfg.get(MARKER)
    if not isinstance(marker, dict):
        return []
    rules, changed = {}, set()
    for key in marker:
        recorded, current = marker.get(key), cfg.get(key)
        if isinstance(recorded, str) and isinstance(current, str) \
                and _norm(recorded) != _norm(current):
            rules[_norm(recorded)] = _norm(current)
            changed.add(key)
    data_root = cfg.get('data_root')
    if 'data_root' not in changed and isinstance(data_root, str):
        # the loaders moved as a whole (--cfg-options on each loader)
        others = set(_other_roots(cfg).values())
        roots = {_norm(v) for _, v in dataset_roots(cfg)
                 if isinstance(v, str) and _norm(v) not in others}
        if len(roots) == 1 and roots != {_norm(data_root)}:
            new = roots.pop()
            print_log(f'every loader reads {new!r}: data_root '
                      f'{data_root!r} and the paths derived from it follow',
                      logger='current')
            rules[_norm(data_root)] = new
    if not rules:
        return []
    changes = []
    for key in list(cfg.keys()):
        if key == MARKER:
            continue
        cfg[key] = _rebind(cfg[key], rules, key, changes)
    # the config now holds paths derived from its own roots
    cfg[MARKER] = {key: cfg.get(key, value) for key, value in marker.items()}
    for where, old, new in changes:
        print_log(f'{where}: {old!r} -> {new!r} (derived from '
                  f'{MARKER})', logger='current')
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
        source (str, optional): The config file, for error messages.

    Returns:
        list[tuple]: ``(setting, old value, new value)`` of each moved path.
    """
    changes = rebind_derived_paths(cfg)
    check_data_roots(cfg, source)
    return changes
