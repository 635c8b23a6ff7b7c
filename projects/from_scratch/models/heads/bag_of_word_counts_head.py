"""An auxiliary head: which words the pair's captions use, and how often."""
from typing import List, Optional

import torch

from mmidc.registry import MODELS

from ..processors.counted_word_prior import CountedWordPrior
from .bag_of_words_head import BagOfWordsHead

__all__ = ['BagOfWordCountsHead']


@MODELS.register_module()
class BagOfWordCountsHead(BagOfWordsHead):
    """Predict how many times each caption word occurs, up to ``max_count``.

    :class:`BagOfWordsHead` predicts whether a word occurs; its word prior
    is the same at every step, so once the caption has named the changed
    object's colour the prior still favours that colour where the new one
    belongs ("the yellow sphere turned yellow"). This head predicts, for
    every word and every ``k`` in ``1 .. max_count``, the share of the pair's
    references that hold the word at least ``k`` times (binary
    cross-entropy over ``[B, K, V]``, times ``loss_weight``: ``loss_words``),
    and its word prior is counted: a word the caption holds ``c`` times gets
    ``scale * log(sigmoid(logit[min(c, K - 1)]))``, the belief that the
    captions hold it once more. The caption head adds it by the counts of
    the words before each position; in decoding it is a
    :class:`CountedWordPrior` (:meth:`logits_processor`). Loss and prior are
    :class:`BagOfWordsHead`'s, over ``[B, K, V]``.

    Args:
        in_channels (int): Width of the flattened summary, ``E * D`` (set
            by the algorithm).
        num_classes (int): Vocabulary size ``V`` (set by the algorithm).
        max_count (int): ``K``, the counts told apart (at least 1; ``K = 1``
            is :class:`BagOfWordsHead`'s target). Default 3.
        pad_id (int): The vocabulary's padding id, never a target. Default 0.
        loss_weight (float): Weight of ``loss_words``. Default 1.
        word_prior (bool): Provide :meth:`logit_bias`. Default False.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 in_channels: int,
                 num_classes: int,
                 max_count: int = 3,
                 pad_id: int = 0,
                 loss_weight: float = 1.0,
                 word_prior: bool = False,
                 init_cfg: Optional[dict] = None):
        if max_count < 1:
            raise ValueError(f'max_count must be >= 1, got {max_count}')
        super().__init__(in_channels, num_classes * max_count, pad_id=pad_id,
                         loss_weight=loss_weight, word_prior=word_prior,
                         init_cfg=init_cfg)
        self.num_classes = num_classes
        self.max_count = max_count

    def forward(self, summary: torch.Tensor) -> torch.Tensor:
        """Summary tokens ``[B, E, D]`` -> count logits ``[B, K, V]``."""
        logits = self.fc(summary.flatten(1))  # [B, K*V]
        return logits.view(-1, self.max_count, self.num_classes)  # [B, K, V]

    def targets(self, references: List[torch.Tensor]) -> torch.Tensor:
        """Soft targets ``[B, K, V]``: per pair, the fraction of its
        references holding each word at least ``k + 1`` times (words after
        the start token, end-of-text included, padding never)."""
        levels = torch.arange(1, self.max_count + 1)  # [K]
        rows = []
        for tokens in references:
            counts = self.word_counts(tokens)  # [R, V]
            at_least = counts[:, None, :] >= levels.to(counts)[None, :, None]  # [R, K, V]
            rows.append(at_least.float().mean(0))  # [K, V]
        return torch.stack(rows)  # [B, K, V]

    def logits_processor(self, logits: torch.Tensor) -> Optional[CountedWordPrior]:
        """The counted word prior of :meth:`logit_bias` (``[B, K, V]``) as a
        logits processor of the search (:class:`CountedWordPrior`), or
        None."""
        bias = self.logit_bias(logits)
        return None if bias is None else CountedWordPrior(bias)
