"""CCExpert's remote-sensing protocol (``'rs_words'``)."""
from mmidc.registry import SCORING_PROTOCOLS
from .base_protocol import ScoringProtocol


def rs_words(sentence: str) -> str:
    """``'rs_words'``: lowercased, every ``"."`` removed, the words split on
    whitespace and joined by one space.

    Args:
        sentence (str): A caption.
    """
    return ' '.join(sentence.lower().replace('.', '').split())


@SCORING_PROTOCOLS.register_module()
class RSWordsProtocol(ScoringProtocol):
    """``'rs_words'`` (CCExpert's ``eval_CCExpert.py`` + ``get_eval_score``):
    each sentence lowercased, every ``"."`` removed, split on whitespace;
    no PTB tokenizer. The no-change decision is scored with the data set's
    sentences.

    Args:
        no_change_sentences (str | Sequence[str], optional): A data set's
            name (:data:`mmidc.text.no_change.NO_CHANGE_SENTENCES`) or the
            sentences; None: no decision. Defaults to ``'levir_cc'``.
    """

    name = 'rs_words'
    default_no_change = 'levir_cc'

    def encode(self, sentence: str) -> str:
        return rs_words(sentence)
