"""Reading and type checks of annotation files, shared by every loader.

Annotation files come from many hands: a field may hold a string where a
list belongs, a number where a file name belongs, or text in another
encoding. These helpers turn each such fault into a ``ValueError`` that names
the file and the record or key, instead of a loader going on with wrong data
(a caption string split into characters) or failing deep inside with a
message that names neither (``join() argument must be str``).
"""
import json
import os.path as osp
from typing import Any, List, Sequence


def read_text(path: str) -> str:
    """The text of an annotation file, decoded as UTF-8.

    A leading byte order mark is dropped; line ends are kept as they are.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: the file is not UTF-8, naming it and the first bad
            byte.
    """
    if not osp.isfile(path):
        raise FileNotFoundError(f'annotation file not found: {path}')
    with open(path, 'rb') as f:
        data = f.read()
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        line = data.count(b'\n', 0, e.start) + 1
        raise ValueError(
            f'{path}: not UTF-8 text (byte {e.start}, line {line}: '
            f'{data[e.start:e.end]!r}); annotation files must be UTF-8, '
            'e.g. convert with `iconv -f latin1 -t utf-8`') from None


def load_json(path: str) -> Any:
    """Load a UTF-8 JSON file, naming it when it is absent, not UTF-8 or
    malformed."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f'{path}: not valid JSON ({e})') from e


def check_record(record: Any, where: str, keys: Sequence[str]) -> dict:
    """``record`` as a dict holding every one of ``keys``.

    Args:
        record: One record of an annotation list.
        where (str): The file and record, e.g. ``'train.json: record 3'``.
        keys (Sequence[str]): The required keys.
    """
    if not isinstance(record, dict):
        raise ValueError(f'{where} must be an object with the keys '
                         f'{", ".join(keys)}; got {type(record).__name__} '
                         f'{_short(record)}')
    for key in keys:
        if key not in record:
            raise ValueError(f'{where} has no key "{key}" (required: '
                             f'{", ".join(keys)})')
    return record


def str_field(value: Any, where: str, key: str,
              allow_int: bool = False) -> str:
    """A non-empty string field (a file name, an id), as ``str``.

    Args:
        value: The field's value.
        where (str): The file and record, for the error.
        key (str): The field's name, for the error.
        allow_int (bool): Accept an int too (ids written as numbers).
            Defaults to False.
    """
    if allow_int and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        kind = 'a non-empty string' + (' or an int' if allow_int else '')
        raise ValueError(f'{where} key "{key}" must be {kind}, got '
                         f'{type(value).__name__} {_short(value)}')
    return value


def caption_list(value: Any, where: str, key: str) -> List[str]:
    """A list of caption strings (empty strings included: loaders drop or
    reject them each by their own rule).

    A single string is an error, not a list of its characters.
    """
    if isinstance(value, str):
        raise ValueError(f'{where} key "{key}" is a string '
                         f'{_short(value)}; it must be a list of strings '
                         f'(["..."] for one caption)')
    if not isinstance(value, (list, tuple)):
        raise ValueError(f'{where} key "{key}" must be a list of strings, '
                         f'got {type(value).__name__} {_short(value)}')
    for k, caption in enumerate(value):
        if not isinstance(caption, str):
            raise ValueError(f'{where} key "{key}": item {k} must be a '
                             f'string, got {type(caption).__name__} '
                             f'{_short(caption)}')
    return list(value)


def has_words(caption: str) -> bool:
    """Whether a caption has a word: a letter or a digit, in any script.

    A caption of spaces, punctuation or emoji only (``"!!!"``, ``"..."``,
    ``"🙂"``) is empty once the caption metrics tokenise it: no word to
    train on or to match.
    """
    return any(ch.isalnum() for ch in caption)


def check_not_empty(data_list: Sequence, source: str) -> None:
    """Raise a ``ValueError`` naming ``source`` if a split has no pair."""
    if not data_list:
        raise ValueError(f'{source}: the split has no pairs; a data set '
                         'needs at least one (an empty annotation list, a '
                         'split no record belongs to, or every record '
                         'dropped: see the log)')


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'
