"""The words of the remote-sensing protocols and the word vocabulary of
``'rs_ids'`` (RSICC, Chg2Cap, Change3D)."""
from collections import Counter
from typing import Dict, Iterable, List

from .rs_words_protocol import rs_words

__all__ = ['SPECIAL_WORDS', 'WORD_FREQ_RULES', 'rs_words', 'rs_id_words',
           'RSWordVocab', 'check_vocab_options']

#: The id-vocabulary's special words and ids (Chg2Cap's layout).
SPECIAL_WORDS = {'<NULL>': 0, '<UNK>': 1, '<START>': 2, '<END>': 3}
WORD_FREQ_RULES = ('>', '>=')


def rs_id_words(sentence: str, lowercase: bool = True) -> List[str]:
    """The words ``'rs_ids'`` counts and encodes: ``","`` and ``";"`` split
    off as words of their own, ``"."`` and ``"?"`` removed, split on
    whitespace (Chg2Cap's ``tokenize``), lowercased unless ``lowercase`` is
    False (Chg2Cap keeps the case: Dubai-CC's ``vocab.json`` has ``A`` and
    ``a``).

    Args:
        sentence (str): A caption.
        lowercase (bool): Lowercase first. Defaults to True.
    """
    if lowercase:
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
        lowercase (bool): Lowercase the words (:func:`rs_id_words`).
            Defaults to True.
    """

    def __init__(self, captions: Iterable[str], min_word_freq: int,
                 word_freq_rule: str, lowercase: bool = True):
        check_vocab_options(min_word_freq, word_freq_rule)
        self.lowercase = lowercase
        counts = Counter(word for caption in captions
                         for word in rs_id_words(caption, lowercase))
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

    @classmethod
    def from_word_map(cls, word_to_id: Dict[str, int],
                      lowercase: bool = True) -> 'RSWordVocab':
        """The vocabulary of a paper's own word map (RSICC's ``WORDMAP``,
        Chg2Cap's ``vocab.json``: ``{word: id}``, ``<UNK>`` among them;
        RSICC writes it ``<unk>``)."""
        vocab = cls.__new__(cls)
        if '<UNK>' not in word_to_id and '<unk>' not in word_to_id:
            raise ValueError('a word map needs the word <UNK> or <unk> '
                             f'(keys: {sorted(word_to_id)[:8]}...)')
        vocab.word_to_id = dict(word_to_id)
        vocab.word_to_id.setdefault('<UNK>', word_to_id.get('<unk>'))
        vocab.lowercase = lowercase
        vocab.min_word_freq = vocab.word_freq_rule = None
        return vocab

    def __len__(self) -> int:
        return len(self.word_to_id)

    @property
    def num_caption_words(self) -> int:
        """The number of words other than the special ones."""
        return sum(1 for w in self.word_to_id if w not in SPECIAL_WORDS)

    def encode(self, sentence: str) -> str:
        """The sentence as a string of word ids (``<UNK>`` for a word
        outside the vocabulary)."""
        unk = self.word_to_id['<UNK>']
        return ' '.join(str(self.word_to_id.get(word, unk))
                        for word in rs_id_words(sentence, self.lowercase))

    def unknown_share(self, sentences: Iterable[str]) -> float:
        """The share (0..1) of the words of ``sentences`` that are
        ``<UNK>``; 0 when they have no word."""
        words = [w for s in sentences for w in rs_id_words(s, self.lowercase)]
        if not words:
            return 0.
        return sum(w not in self.word_to_id for w in words) / len(words)


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
