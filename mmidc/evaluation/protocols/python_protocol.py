"""coco-caption's protocol without Java: a Python PTB-like tokenizer."""
from typing import Optional, Sequence, Tuple

from mmidc.registry import SCORING_PROTOCOLS
from mmidc.text.ptb_tokenizer import PythonPTBTokenizer
from .base_protocol import ScoringProtocol, Tokens
from .ptb_protocol import coco_tokenize


@SCORING_PROTOCOLS.register_module()
class PythonProtocol(ScoringProtocol):
    """``'python'``: :class:`~mmidc.text.ptb_tokenizer.PythonPTBTokenizer`,
    the PTB tokenizer's tokens on ordinary English without a JVM
    (docs/evaluation.md measures the difference). No no-change decision by
    default.

    Args:
        no_change_sentences (str | Sequence[str], optional): See
            :class:`ScoringProtocol`. Defaults to None.
    """

    name = 'python'

    def tokenize(self, records: Sequence[dict], java: Optional[str] = None,
                 timeout: float = 600.) -> Tuple[Tokens, Tokens]:
        return coco_tokenize(records, PythonPTBTokenizer())
