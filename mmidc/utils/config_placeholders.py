"""``{name}`` placeholders in a config (``'{data_root}/caption_vocab_train.json'``),
filled from the top-level settings the config ends with, in one place:
:func:`fill_placeholders`, which the commands, the data tools and the
inferencers call (why the data-set bases write them: :mod:`mmidc.runtime.data_root`).
"""
import re
from typing import Dict, List, Tuple

__all__ = ['PLACEHOLDER', 'fill_placeholders', 'has_placeholder']

#: ``{name}``: a top-level setting's value.
PLACEHOLDER = re.compile(r'\{([A-Za-z_]\w*)\}')


def has_placeholder(value) -> bool:
    """Whether ``value`` is a string holding a ``{name}`` placeholder."""
    return isinstance(value, str) and PLACEHOLDER.search(value) is not None


def _where(path: Tuple) -> str:
    """``('a', 'b', 1, 'c')`` -> ``'a.b[1].c'``."""
    text = ''
    for part in path:
        text += f'[{part}]' if isinstance(part, int) else (
            f'.{part}' if text else str(part))
    return text


def fill_placeholders(cfg) -> List[Tuple[str, str, str]]:
    """Fill every ``{name}`` placeholder of ``cfg`` in place.

    ``{name}`` stands for the top-level setting ``name`` (itself filled
    first: ``vocab_file = '{data_root}/...'``). Inside a data set config
    with its own ``data_root`` (a loader's ``dataset``, each data set of a
    ``ConcatDataset``), ``{data_root}`` is that data set's folder, so the
    image cache of a loader that reads a second folder follows it. In a
    config without a top-level ``data_root`` whose loaders name their own
    folders, a ``{data_root}`` outside a data set (a pipeline variable) is
    left as written: each data set fills it with its folder when it reads
    the path (``LoadImagePair``'s ``cache_dir``).

    Args:
        cfg (Config | dict): The config, changed in place.

    Returns:
        list[tuple[str, str, str]]: ``(setting, written value, filled
        value)`` of each filled string.

    Raises:
        ValueError: A placeholder without a top-level setting of that name
            (or one that refers to itself), naming the setting that holds it.
    """
    top: Dict[str, object] = {key: cfg[key] for key in cfg.keys()}
    filled: Dict[str, str] = {}

    def value_of(name: str, where: str, busy: Tuple[str, ...]) -> str:
        if name in filled:
            return filled[name]
        value = top.get(name)
        if not isinstance(value, str):
            raise ValueError(
                f'{where}: the placeholder {{{name}}} has no top-level '
                f'setting {name!r} (a string) to stand for; set {name} = '
                "'...' in the config or with --cfg-options")
        if name in busy:
            raise ValueError(f'{where}: the placeholder {{{name}}} refers to '
                             f'itself ({" -> ".join(busy + (name, ))})')
        filled[name] = fill(value, {}, name, busy + (name, ))
        return filled[name]

    def fill(text: str, scope: Dict[str, str], where: str,
             busy: Tuple[str, ...] = (), strict: bool = True) -> str:
        def one(match) -> str:
            name = match.group(1)
            if name in scope:
                return scope[name]
            if (not strict and name == 'data_root'
                    and not isinstance(top.get(name), str)):
                # No top-level data_root: each data set fills it with its
                # own folder when it reads the path (LoadImagePair's cache).
                return match.group(0)
            return value_of(name, where, busy)

        return PLACEHOLDER.sub(one, text)

    changes: List[Tuple[str, str, str]] = []

    def walk(node, path: Tuple, scope: Dict[str, str]):
        if isinstance(node, str):
            if not has_placeholder(node):
                return node
            new = fill(node, scope, _where(path),
                       strict=path[-1] == 'data_root')
            if new != node:
                changes.append((_where(path), node, new))
            return new
        if isinstance(node, dict):
            own = node.get('data_root')
            if isinstance(own, str) and path:
                new_root = walk(own, path + ('data_root', ), scope)
                node['data_root'] = new_root
                scope = dict(scope, data_root=new_root)
            for key in list(node.keys()):
                if not (key == 'data_root' and path):
                    node[key] = walk(node[key], path + (key, ), scope)
            return node
        if isinstance(node, list):
            for i, item in enumerate(node):
                node[i] = walk(item, path + (i, ), scope)
            return node
        if isinstance(node, tuple):
            return type(node)(walk(item, path + (i, ), scope)
                              for i, item in enumerate(node))
        return node

    for key in list(top):
        value = top[key]
        if isinstance(value, str):
            if has_placeholder(value):
                new = value_of(key, key, ())
                changes.append((key, value, new))
                cfg[key] = new
        else:
            cfg[key] = walk(value, (key, ), {})
    return changes
