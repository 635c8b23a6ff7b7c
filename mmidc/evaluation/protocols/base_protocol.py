"""What a caption scoring protocol is: the words a sentence is scored on
and the sentences that say "no change"."""
from typing import Dict, List, Optional, Sequence, Tuple, Union

from mmidc.text.no_change import (no_change_sentences as named_sentences,
                                  normalize_sentence)

Tokens = Dict[object, List[str]]


class ScoringProtocol:
    """The part of a paper's evaluation that decides which words BLEU,
    METEOR, ROUGE-L and CIDEr-D see, and which predictions decide "no
    change". The scorers (pycocoevalcap's) are the same under every
    protocol; :class:`~mmidc.evaluation.metrics.CaptionScorer` runs them on
    the protocol's words.

    A protocol is a registered component (``SCORING_PROTOCOLS``), one a
    file; ``IDCMetric(protocol=dict(type='RSIdsProtocol', ...))`` builds one,
    and the shorthands ``'ptb'``, ``'python'``, ``'rs_words'``, ``'rs_ids'``
    name them (:func:`~mmidc.evaluation.protocols.build_protocol`).

    Args:
        no_change_sentences (str | Sequence[str], optional): The sentences a
            prediction says "no change" with, for the decision accuracy
            (``decision_acc`` keys): a data set's name (a key of
            :data:`mmidc.text.no_change.NO_CHANGE_SENTENCES`, e.g.
            ``'levir_cc'``) or the sentences. None: no decision is scored.
            Defaults to :attr:`default_no_change`.
    """

    #: The shorthand that names the protocol (``IDCMetric(tokenizer=...)``)
    #: and is shown in the score table's title.
    name = 'base'
    #: Whether :meth:`tokenize` runs Java (the PTB tokenizer).
    needs_java = False
    #: The no-change sentences when none are given (None: no decision).
    default_no_change: Union[str, None] = None

    def __init__(self,
                 no_change_sentences: Union[str, Sequence[str], None,
                                            type(Ellipsis)] = ...):
        if no_change_sentences is ...:
            no_change_sentences = self.default_no_change
        self.no_change_sentences = check_no_change_sentences(
            no_change_sentences)

    def prepare(self) -> None:
        """Read what the protocol needs before its first scoring (e.g. the
        vocabulary of ``'rs_ids'``); nothing by default."""

    def encode(self, sentence: str) -> str:
        """The sentence as the scored words joined by one space (the
        per-sentence protocols)."""
        raise NotImplementedError

    def tokenize(self, records: Sequence[dict], java: Optional[str] = None,
                 timeout: float = 600.) -> Tuple[Tokens, Tokens]:
        """The words of every reference and prediction, in coco-caption's
        ``{pair_id: [sentence, ...]}`` layout: ``(references,
        predictions)``.

        Args:
            records (Sequence[dict]): ``pair_id``, ``prediction``,
                ``references``.
            java (str, optional): The java binary (protocols that need it).
            timeout (float): Seconds a Java tokenizer may run.
        """
        self.prepare()
        gts = {r['pair_id']: [self.encode(c) for c in r['references']]
               for r in records}
        res = {r['pair_id']: [self.encode(r['prediction'])] for r in records}
        return gts, res

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self.name!r})'


def check_no_change_sentences(sentences) -> Optional[Tuple[str, ...]]:
    """The no-change sentences named by ``sentences`` (a data set's name or
    the sentences; None: none), or a ``ValueError`` naming the option."""
    if sentences is None:
        return None
    try:
        sentences = named_sentences(sentences)
    except KeyError as e:
        raise ValueError(e.args[0]) from None  # names the option
    except TypeError:
        raise ValueError('no_change_sentences must be a data set name or a '
                         f'list of sentences, got {sentences!r}') from None
    if not sentences or not all(isinstance(s, str) and normalize_sentence(s)
                                for s in sentences):
        raise ValueError('no_change_sentences must be a data set name or a '
                         f'list of sentences with words, got {sentences!r}')
    return sentences
