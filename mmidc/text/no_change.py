"""Sentences that say nothing changed, per data set, and the one way they
are compared.

Remote-sensing change-captioning sets have no per-pair change flag (except
LEVIR-CC's ``LevirCCcaptions_v1.json``): a pair is a no-change pair when its
captions say so, and a prediction decides "no change" when it is such a
sentence. Each data set has its own sentences. The data-set readers flag
pairs and the metrics judge predictions with the same sentences and the
same normalisation (:func:`normalize_sentence`).
"""
import re
from typing import Dict, Iterable, Sequence, Tuple, Union

__all__ = ['NO_CHANGE_SENTENCES', 'normalize_sentence',
           'no_change_sentences', 'is_no_change_sentence',
           'no_change_set']

#: The no-change sentences of each data set, keyed by the name the readers
#: and the metric options use. LEVIR-CC's five are the ones its own
#: evaluation code lists (RSICC ``eval.py``, Chg2Cap ``test.py``).
NO_CHANGE_SENTENCES: Dict[str, Tuple[str, ...]] = {
    'levir_cc': (
        'the scene is the same as before',
        'there is no difference',
        'the two scenes seem identical',
        'no change has occurred',
        'almost nothing has changed',
    ),
}

_SPACES = re.compile(r'\s+')


def normalize_sentence(sentence: str) -> str:
    """The form in which sentences are compared: lowercased, every ``"."``
    removed, words split on white space and joined by one space (the
    remote-sensing evaluation scripts' form).

    Args:
        sentence (str): A caption.
    """
    return _SPACES.sub(' ', sentence.lower().replace('.', '')).strip()


def no_change_sentences(sentences: Union[str, Iterable[str]]
                        ) -> Tuple[str, ...]:
    """The no-change sentences named by ``sentences``: a data set's name
    (a key of :data:`NO_CHANGE_SENTENCES`) or the sentences themselves.

    Args:
        sentences (str | Iterable[str]): A data set's name or a list of
            sentences.

    Raises:
        KeyError: an unknown data set name, naming the known ones.
    """
    if isinstance(sentences, str):
        if sentences not in NO_CHANGE_SENTENCES:
            raise KeyError(
                f'no_change_sentences: unknown data set {sentences!r}; '
                f'known: {sorted(NO_CHANGE_SENTENCES)} (or give a list of '
                f'sentences)')
        return NO_CHANGE_SENTENCES[sentences]
    return tuple(sentences)


def no_change_set(sentences: Union[str, Iterable[str]]) -> frozenset:
    """The normalised no-change sentences named by ``sentences`` (see
    :func:`no_change_sentences`), for repeated look-ups."""
    return frozenset(normalize_sentence(s)
                     for s in no_change_sentences(sentences))


def is_no_change_sentence(sentence: str,
                          sentences: Union[str, Sequence[str]] = 'levir_cc'
                          ) -> bool:
    """Whether ``sentence`` is one of the no-change ``sentences`` (a data
    set's name or a list), both compared after :func:`normalize_sentence`.
    """
    return normalize_sentence(sentence) in no_change_set(sentences)
