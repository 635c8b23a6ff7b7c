"""coco-caption's scoring protocol: the PTB tokenizer (Java)."""
from typing import Optional, Sequence, Tuple

from mmidc.registry import SCORING_PROTOCOLS
from .base_protocol import ScoringProtocol, Tokens


def coco_captions(records: Sequence[dict]) -> dict:
    """``records`` in the ``{key: [{'caption': str}, ...]}`` form of
    coco-caption's tokenizers (keys ``('gt', pair_id)``, ``('res',
    pair_id)``)."""
    captions = {}
    for rec in records:
        pid = rec['pair_id']
        captions[('gt', pid)] = [{'caption': c} for c in rec['references']]
        captions[('res', pid)] = [{'caption': rec['prediction']}]
    return captions


def split_tokens(records: Sequence[dict], tokens: dict
                 ) -> Tuple[Tokens, Tokens]:
    """The tokenizer's output back as ``(references, predictions)``."""
    gts = {r['pair_id']: tokens[('gt', r['pair_id'])] for r in records}
    res = {r['pair_id']: tokens[('res', r['pair_id'])] for r in records}
    return gts, res


@SCORING_PROTOCOLS.register_module()
class PTBProtocol(ScoringProtocol):
    """coco-caption's protocol (``'ptb'``): Stanford CoreNLP's PTB
    tokenizer (``-preserveLines -lowerCase``, a JVM), punctuation tokens
    dropped. Natural-image IDC (CLEVR-Change, Spot-the-Diff,
    Image-Editing-Request, Birds-to-Words) is scored so: CLIP4IDC, IDC-PCL,
    the coco-caption evaluation. No no-change decision by default.

    Args:
        no_change_sentences (str | Sequence[str], optional): See
            :class:`ScoringProtocol`. Defaults to None.
    """

    name = 'ptb'
    needs_java = True

    def tokenize(self, records: Sequence[dict], java: Optional[str] = None,
                 timeout: float = 600.) -> Tuple[Tokens, Tokens]:
        from mmidc.evaluation.metrics.coco_caption_java import \
            JavaPTBTokenizer
        if java is None:
            raise ValueError("the 'ptb' protocol needs a java binary")
        tokens = JavaPTBTokenizer(java, timeout).tokenize(
            coco_captions(records))
        return split_tokens(records, tokens)
