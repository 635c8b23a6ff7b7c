"""Reading and type checks of annotation files, shared by every loader.

Annotation files come from many hands: a field may hold a string where a
list belongs, a number where a file name belongs, or text in another
encoding. These helpers turn each such fault into a ``ValueError`` that names
the file and the record or key, instead of a loader going on with wrong data
(a caption string split into characters) or failing deep inside with a
message that names neither (``join() argument must be str``).
"""
from typing import Any, List, Sequence

# The one reader of UTF-8 text and JSON files (every file read at start-up).
from mmidc.text.text_files import load_json, read_text

__all__ = ['read_text', 'load_json', 'check_record', 'str_field',
           'caption_list', 'has_words', 'check_not_empty']


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
