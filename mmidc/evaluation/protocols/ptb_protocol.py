"""coco-caption's scoring protocol: the PTB tokenizer (Java)."""
from typing import Optional, Sequence, Tuple

from mmidc.registry import SCORING_PROTOCOLS
from .base_protocol import ScoringProtocol, Tokens


def coco_tokenize(records: Sequence[dict], tokenizer) -> Tuple[Tokens, Tokens]:
    """``(references, predictions)`` of ``records`` through a coco-caption
    tokenizer, which takes ``{key: [{'caption': str}, ...]}`` (keys
    ``('gt', pair_id)``, ``('res', pair_id)``)."""
    captions = {}
    for rec in records:
        pid = rec['pair_id']
        captions[('gt', pid)] = [{'caption': c} for c in rec['references']]
        captions[('res', pid)] = [{'caption': rec['prediction']}]
    tokens = tokenizer.tokenize(captions)
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
        return coco_tokenize(records, JavaPTBTokenizer(java, timeout))
