"""The remote-sensing change-captioning scoring protocols and the no-change
decision.

Remote-sensing change-captioning papers (LEVIR-CC, LEVIR-MCI, WHU-CDC,
SECOND-CC, Dubai-CC) do not tokenise with coco-caption's PTB tokenizer. Two
protocols are in use, registered components of
:mod:`mmidc.evaluation.protocols` (``RSWordsProtocol``, ``RSIdsProtocol``)
that :class:`~mmidc.evaluation.IDCMetric`'s ``tokenizer`` names by shorthand
(docs/evaluation.md lists which papers use which); this module keeps their
word functions and the no-change decision:

- ``'rs_words'`` (CCExpert's ``eval_CCExpert.py`` + ``get_eval_score``):
  each sentence lowercased, every ``"."`` removed, split on whitespace;
  pycocoevalcap's ``Bleu(4)``, ``Meteor()``, ``Rouge()``, ``Cider()`` on those
  words (:func:`rs_words`).
- ``'rs_ids'`` (Chen-Yang-Liu/RSICC ``eval.py``, ShizhenChang/Chg2Cap
  ``test.py``): a vocabulary of caption words with a minimum count, other
  words ``<UNK>``; the same four scorers on the sentences written as strings
  of word ids (:class:`RSWordVocab`). Words as Chg2Cap's
  ``preprocess_data.tokenize`` splits them: ``","`` and ``";"`` kept as
  words, ``"."`` and ``"?"`` removed (:func:`rs_id_words`, lowercased).
  RSICC keeps a word seen *more than* ``min_word_freq`` times (5), Chg2Cap
  one seen *at least* ``min_word_freq`` times (5 on LEVIR-CC, 0 on
  Dubai-CC): ``word_freq_rule`` ``'>'`` or ``'>='`` says which. Both count
  the words of every split of the annotation file (``RSIdsProtocol``'s
  ``vocab_ann_file``).

Both repositories and CCExpert also report the change and no-change subsets
and whether a no-change sentence (the data set's,
:mod:`mmidc.text.no_change`) is predicted exactly where the pair is a
no-change pair (:func:`no_change_decisions`).
"""
from typing import Dict, Optional, Sequence

from mmidc.text.no_change import NO_CHANGE_SENTENCES, no_change_set
from mmidc.text.no_change import normalize_sentence

#: LEVIR-CC's no-change sentences, as RSICC's ``eval.py`` and Chg2Cap's
#: ``test.py`` list them (:data:`mmidc.text.no_change.NO_CHANGE_SENTENCES`
#: holds every data set's).
RS_NO_CHANGE_SENTENCES = NO_CHANGE_SENTENCES['levir_cc']
# The words and the vocabulary live with the protocol components.
from mmidc.evaluation.protocols.rs_vocab import (  # noqa: F401
    SPECIAL_WORDS, WORD_FREQ_RULES, RSWordVocab, check_vocab_options,
    rs_id_words, rs_words)


def no_change_decisions(records: Sequence[dict], no_change: Sequence[str],
                        no_change_type: str = 'none',
                        unknown_type: str = 'unknown'
                        ) -> Optional[Dict[str, float]]:
    """How often a no-change sentence is predicted exactly on the no-change
    pairs, x100: ``'change'`` (change pairs predicted with another
    sentence), ``'no_change'`` (no-change pairs predicted with a no-change
    sentence) and ``'total'`` (both); a share is left out when its pairs are
    missing. Pairs of type ``unknown_type`` are not counted; None when no
    pair has a type.

    Args:
        records (Sequence[dict]): ``pair_id``, ``prediction``,
            ``change_type``.
        no_change (str | Sequence[str]): The no-change sentences, or a data
            set's name (:mod:`mmidc.text.no_change`), compared after
            :func:`mmidc.text.no_change.normalize_sentence`.
        no_change_type (str): The type of a no-change pair.
        unknown_type (str): The type of a pair whose change is unknown.
    """
    right = {'change': [], 'no_change': []}
    sentences = no_change_set(no_change)
    for rec in records:
        ctype = rec.get('change_type') or unknown_type
        if ctype == unknown_type:
            continue
        said = normalize_sentence(rec['prediction']) in sentences
        if ctype == no_change_type:
            right['no_change'].append(said)
        else:
            right['change'].append(not said)
    every = right['change'] + right['no_change']
    if not every:
        return None
    shares = {key: 100. * sum(values) / len(values)
              for key, values in right.items() if values}
    shares['total'] = 100. * sum(every) / len(every)
    return shares
