"""Reading the UTF-8 text and JSON files a run starts from.

Annotation files, ``splits.json``, ``type_mapping.json``, the caption
vocabulary file and the hard negatives are all read with :func:`load_json`:
a file that is absent, not UTF-8 or not valid JSON is an error naming the
file (and the line and column of a parse error), never a bare
``JSONDecodeError``.
"""
import json
import os.path as osp
from typing import Any

__all__ = ['read_text', 'load_json']


def read_text(path: str, kind: str = 'annotation file') -> str:
    """The text of a file, decoded as UTF-8.

    A leading byte order mark is dropped; line ends are kept as they are.

    Args:
        path (str): The file.
        kind (str): What the file is, named when it is absent. Defaults to
            ``'annotation file'``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: the file is not UTF-8, naming it and the first bad
            byte.
    """
    if not osp.isfile(path):
        where = ('' if osp.isabs(path) else f' ({osp.abspath(path)}: a '
                 'relative path is read from the working directory)')
        raise FileNotFoundError(f'{kind} not found: {path}{where}')
    with open(path, 'rb') as f:
        data = f.read()
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        line = data.count(b'\n', 0, e.start) + 1
        raise ValueError(
            f'{path}: not UTF-8 text (byte {e.start}, line {line}: '
            f'{data[e.start:e.end]!r}); {kind}s must be UTF-8, '
            'e.g. convert with `iconv -f latin1 -t utf-8`') from None


def load_json(path: str, kind: str = 'annotation file') -> Any:
    """Load a UTF-8 JSON file, naming it when it is absent, not UTF-8 or
    not valid JSON.

    Args:
        path (str): The file.
        kind (str): What the file is, named when it is absent. Defaults to
            ``'annotation file'``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: the file is not UTF-8 or not valid JSON (naming the
            file, the line and the column).
    """
    text = read_text(path, kind)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f'{path}: not valid JSON ({e})') from e
