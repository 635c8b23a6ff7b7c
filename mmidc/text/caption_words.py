"""The words of a caption, for comparing captions by their words."""
import re
from typing import List, Tuple

__all__ = ['normalize_caption', 'word_spans']

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


def normalize_caption(caption: str) -> str:
    """Lower case, single spaces, no final full stop."""
    return ' '.join(caption.lower().split()).rstrip('.').rstrip()


def word_spans(caption: str) -> List[Tuple[int, int, str]]:
    """``(start, end, lower-cased word)`` of every word of a caption (letters
    and digits, with an inner apostrophe: ``cube's``), in any language."""
    return [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(caption)]
