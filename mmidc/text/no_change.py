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

_LEVIR_CC = (
    'the scene is the same as before',
    'there is no difference',
    'the two scenes seem identical',
    'no change has occurred',
    'almost nothing has changed',
)

#: The no-change sentences of each data set, keyed by the name the readers
#: and the metric options use (in normalised form, see
#: :func:`normalize_sentence`).
NO_CHANGE_SENTENCES: Dict[str, Tuple[str, ...]] = {
    # The five its own evaluation code lists (Chen-Yang-Liu/RSICC
    # ``eval.py``, ShizhenChang/Chg2Cap ``test.py``); every no-change pair
    # of the distributed captions (``changeflag`` 0) has exactly these five.
    'levir_cc': _LEVIR_CC,
    # LEVIR-CC's pairs and captions: Chen-Yang-Liu/Change-Agent's
    # ``Multi_change/data/LEVIR_MCI/tokens/`` are LEVIR-CC's token files,
    # byte for byte.
    'levir_mci': _LEVIR_CC,
    # LEVIR-CC's five: every no-change record (``changeflag`` 0) read of
    # ``whuCCcaptions.json`` (Hope21maker/HCFNet ``GTjson/``; its first
    # train records and some test records) carries them, in LEVIR-CC's
    # form (" there is no difference .").
    'whu_cdc': _LEVIR_CC,
    # The list of ChangeCapsInRS/SecondCC ``eval_MModalCC.py`` (its
    # no-change subset and decision accuracy); note "is occurred" and "is
    # changed" where LEVIR-CC has "has". Not checked against the captions
    # file (not in a public repository).
    'second_cc': (
        'the scene is the same as before',
        'there is no difference',
        'the two scenes seem identical',
        'no change is occurred',
        'almost nothing is changed',
    ),
    # Every sentence of the distributed Dubai-CC caption files
    # (``description_jsontr_te_val/{Train,Validation,Test}_Dubai_CC.json``)
    # that says nothing changed (every distinct sentence with "same",
    # "nothing", "no", "remain", "differ", "unchanged" ... read): 32 forms,
    # most frequent first. 145 of the 500 pairs have five of them (the
    # no-change pairs); 30 pairs mix them with captions of a change (their
    # annotators disagree); "no change was made in the area" occurs in a
    # mixed pair only, every other form in a no-change pair. How Chg2Cap's
    # Dubai-CC evaluation differs (15 of them): docs/datasets.md.
    'dubai_cc': (
        'everything remains the same',
        'nothing has changed',
        'there is no difference',
        'there is no change to mention',
        'no change was made',
        'the area appears the same',
        'nothing has changed in this area',
        'no change occurred',
        'no difference in this area',
        'no change occurred in this area',
        'no change to mention',
        'all remained the same',
        'no change was made in this area',
        'there is no difference in this area',
        'no change in this area',
        'there is no change to mention in this area',
        'no changes to mention',
        'nothing has changed in the area',
        'all is the same',
        'no changes in this area',
        'no change occurred in the area',
        'all remained the same in this area',
        'all is the same in this area',
        'nothing changed in this area',
        'there is no change',
        'no difference in the area',
        'no change was made in the area',
        'no changed to mention',
        'there is no difference in the area',
        'no changes in the area',
        'no changes to mention in the area',
        'there is no change to mention in the area',
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
