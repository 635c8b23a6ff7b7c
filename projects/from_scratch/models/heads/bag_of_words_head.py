"""An auxiliary head: which words the pair's captions use."""
from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS
from ..processors.word_prior import WordPrior

__all__ = ['BagOfWordsHead']


@MODELS.register_module()
class BagOfWordsHead(BaseModule):
    """Predict the caption words of a pair from its summary tokens.

    A linear classifier on the flattened summary tokens (a neck's output,
    e.g. :class:`ChangeSummaryNeck`) predicts, for every word of the caption
    head's vocabulary, the share of the pair's reference captions that
    contain it (binary cross-entropy with these soft targets, averaged over
    batch and vocabulary, times ``loss_weight``: ``loss_words``). Words naming
    the changed object recur in most references, the other objects of
    relational phrases in few, so the soft target weights the object's
    attributes. It gives a captioner trained from random weights a direct
    signal for the attributes (docs/from_scratch.md).

    With ``word_prior=True`` the classifier's belief also conditions the
    captioner: :meth:`logit_bias` is ``scale * log(sigmoid(logits))`` per
    vocabulary word (``scale`` learned, starting at 1), which the captioner
    adds to the caption head's next-word logits at every step (in decoding
    as :meth:`logits_processor`, a :class:`WordPrior`), so the
    decoder names the attributes the classifier read (attribute inputs to a
    captioner: Yao et al., "Boosting Image Captioning with Attributes", 2017).

    MMPretrain's ``MultiLabelLinearClsHead`` takes soft targets too, but
    averages its loss over the batch only, so a weight would have to scale
    with the vocabulary size; this head keeps the per-word mean.

    Args:
        in_channels (int): Width of the flattened summary, ``E * D`` (set
            by the algorithm).
        num_classes (int): Vocabulary size ``V`` (set by the algorithm from
            the caption head's vocabulary).
        pad_id (int): The vocabulary's padding id, never a target (set by
            the algorithm). Default 0.
        loss_weight (float): Weight of ``loss_words``. Default 1.
        word_prior (bool): Provide :meth:`logit_bias`. Default False.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 in_channels: int,
                 num_classes: int,
                 pad_id: int = 0,
                 loss_weight: float = 1.0,
                 word_prior: bool = False,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        if loss_weight < 0:
            raise ValueError(f'loss_weight must be >= 0, got {loss_weight}')
        self.num_classes = num_classes
        self.pad_id = pad_id
        self.loss_weight = loss_weight
        self.fc = nn.Linear(in_channels, num_classes)
        self.prior_scale = nn.Parameter(torch.ones(())) if word_prior else None
        nn.init.normal_(self.fc.weight, std=0.02)
        nn.init.zeros_(self.fc.bias)

    def forward(self, summary: torch.Tensor) -> torch.Tensor:
        """Summary tokens ``[B, E, D]`` -> word logits ``[B, V]``."""
        return self.fc(summary.flatten(1))  # [B, E*D] -> [B, V]

    def targets(self, references: List[torch.Tensor]) -> torch.Tensor:
        """Soft targets ``[B, V]`` from each pair's reference captions.

        Args:
            references (list[Tensor]): per pair, compact ids ``[K, L]`` of its
                ``K`` references (start token first, padding ``pad_id``).

        Returns:
            Tensor: per pair, the fraction of its references containing each
            word (end-of-text included, padding not).
        """
        rows = [(self.word_counts(tokens) > 0).float().mean(0)  # [V]
                for tokens in references]
        return torch.stack(rows)  # [B, V]

    def word_counts(self, tokens: torch.Tensor) -> torch.Tensor:
        """How often each word occurs in each of a pair's references.

        Args:
            tokens (Tensor): compact ids ``[K, L]`` (start token first).

        Returns:
            Tensor: ``[K, V]`` counts of the words after the start token
            (end-of-text included, padding never).
        """
        words = tokens[:, 1:]  # [K, L-1]
        counts = words.new_zeros(words.shape[0], self.num_classes)  # [K, V]
        counts.scatter_add_(1, words, torch.ones_like(words))
        counts[:, self.pad_id] = 0
        return counts

    def loss(self, logits: torch.Tensor,
             references: List[torch.Tensor]) -> Dict[str, torch.Tensor]:
        """``loss_words``: weighted BCE of ``logits`` ``[B, V]`` against
        :meth:`targets` of ``references``."""
        targets = self.targets(references).to(logits.device)  # [B, V]
        loss = F.binary_cross_entropy_with_logits(logits.float(), targets)
        return dict(loss_words=self.loss_weight * loss)

    @property
    def has_word_prior(self) -> bool:
        """Whether :meth:`logit_bias` gives a prior (``word_prior=True``)."""
        return self.prior_scale is not None

    def logit_bias(self, logits: torch.Tensor) -> Optional[torch.Tensor]:
        """The word prior ``[B, V]`` for the caption head, or None."""
        if self.prior_scale is None:
            return None
        return self.prior_scale * F.logsigmoid(logits)

    def logits_processor(self, logits: torch.Tensor) -> Optional[WordPrior]:
        """The word prior of :meth:`logit_bias` as a logits processor of
        the search (:class:`WordPrior`), or None."""
        bias = self.logit_bias(logits)
        return None if bias is None else WordPrior(bias)
