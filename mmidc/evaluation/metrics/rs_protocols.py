"""The remote-sensing change-captioning scoring protocols and the no-change
decision.

Remote-sensing change-captioning papers (LEVIR-CC, LEVIR-MCI, WHU-CDC,
SECOND-CC, Dubai-CC) do not tokenise with coco-caption's PTB tokenizer. Two
protocols are in use, and :class:`~mmidc.evaluation.IDCMetric` names them in
its ``tokenizer`` option (docs/evaluation.md lists which papers use which):

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
  the words of every split of the annotation file; which captions count is
  the ``vocab_datasets`` option of the metric.

Both repositories and CCExpert also report the change and no-change subsets
and whether a no-change sentence (:data:`RS_NO_CHANGE_SENTENCES`) is
predicted exactly where the pair is a no-change pair
(:func:`no_change_decisions`).
"""
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence

from mmidc.datasets.change_caption_karpathy import NO_CHANGE_SENTENCES

#: LEVIR-CC's no-change sentences, as RSICC's ``eval.py`` and Chg2Cap's
#: ``test.py`` list them (the ones the remote-sensing readers flag pairs by).
RS_NO_CHANGE_SENTENCES = NO_CHANGE_SENTENCES
#: The id-vocabulary's special words and ids (Chg2Cap's layout).
SPECIAL_WORDS = {'<NULL>': 0, '<UNK>': 1, '<START>': 2, '<END>': 3}
WORD_FREQ_RULES = ('>', '>=')


def rs_words(sentence: str) -> str:
    """``'rs_words'``: lowercased, every ``"."`` removed, the words split on
    whitespace and joined by one space.

    Args:
        sentence (str): A caption.
    """
    return ' '.join(sentence.lower().replace('.', '').split())


def rs_id_words(sentence: str) -> List[str]:
    """The words ``'rs_ids'`` counts and encodes: lowercased, ``","`` and
    ``";"`` split off as words of their own, ``"."`` and ``"?"`` removed,
    split on whitespace (Chg2Cap's ``tokenize``).

    Args:
        sentence (str): A caption.
    """
    sentence = sentence.lower()
    for mark in (',', ';'):
        sentence = sentence.replace(mark, f' {mark} ')
    for mark in ('?', '.'):
        sentence = sentence.replace(mark, '')
    return sentence.split()


class RSWordVocab:
    """The word vocabulary of ``'rs_ids'``: the words of ``captions`` seen
    more than (``'>'``) or at least (``'>='``) ``min_word_freq`` times, in
    alphabetical order after :data:`SPECIAL_WORDS`; any other word is
    ``<UNK>``.

    Args:
        captions (Iterable[str]): The captions whose words are counted.
        min_word_freq (int): The count threshold.
        word_freq_rule (str): ``'>'`` (RSICC) or ``'>='`` (Chg2Cap).
    """

    def __init__(self, captions: Iterable[str], min_word_freq: int,
                 word_freq_rule: str):
        check_vocab_options(min_word_freq, word_freq_rule)
        counts = Counter(word for caption in captions
                         for word in rs_id_words(caption))
        if word_freq_rule == '>':
            kept = [w for w, n in counts.items() if n > min_word_freq]
        else:
            kept = [w for w, n in counts.items() if n >= min_word_freq]
        self.word_to_id: Dict[str, int] = dict(SPECIAL_WORDS)
        for word in sorted(kept):
            if word not in self.word_to_id:
                self.word_to_id[word] = len(self.word_to_id)
        self.min_word_freq = min_word_freq
        self.word_freq_rule = word_freq_rule

    def __len__(self) -> int:
        return len(self.word_to_id)

    def encode(self, sentence: str) -> str:
        """The sentence as a string of word ids (``<UNK>`` for a word
        outside the vocabulary)."""
        unk = self.word_to_id['<UNK>']
        return ' '.join(str(self.word_to_id.get(word, unk))
                        for word in rs_id_words(sentence))


def check_vocab_options(min_word_freq, word_freq_rule) -> None:
    """Raise a ``ValueError`` naming the option that is not set right."""
    if (isinstance(min_word_freq, bool) or not isinstance(min_word_freq, int)
            or min_word_freq < 0):
        raise ValueError(
            "tokenizer='rs_ids' needs min_word_freq, a count >= 0 (RSICC "
            f'and Chg2Cap use 5 on LEVIR-CC), got {min_word_freq!r}')
    if word_freq_rule not in WORD_FREQ_RULES:
        raise ValueError(
            "tokenizer='rs_ids' needs word_freq_rule: '>' keeps a word seen "
            "more than min_word_freq times (RSICC), '>=' one seen at least "
            f"min_word_freq times (Chg2Cap); got {word_freq_rule!r}")


def is_no_change_sentence(sentence: str, no_change: Sequence[str]) -> bool:
    """Whether ``sentence`` is one of the no-change sentences (compared as
    :func:`rs_words`)."""
    return rs_words(sentence) in {rs_words(s) for s in no_change}


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
        no_change (Sequence[str]): The no-change sentences.
        no_change_type (str): The type of a no-change pair.
        unknown_type (str): The type of a pair whose change is unknown.
    """
    right = {'change': [], 'no_change': []}
    for rec in records:
        ctype = rec.get('change_type') or unknown_type
        if ctype == unknown_type:
            continue
        said = is_no_change_sentence(rec['prediction'], no_change)
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
