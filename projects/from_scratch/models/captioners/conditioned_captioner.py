"""ConditionedCaptioner: CLIP4IDC's captioner whose caption head is also
conditioned on summary tokens and an auxiliary head's word prior."""
from typing import Optional

import torch
from torch import nn

from mmidc.models import CLIP4IDCCaptioner
from mmidc.models.data_preprocessors import stack_text_tokens
from mmidc.registry import MODELS

__all__ = ['ConditionedCaptioner']


@MODELS.register_module()
class ConditionedCaptioner(CLIP4IDCCaptioner):
    """:class:`CLIP4IDCCaptioner` with the from-scratch recipe's
    conditioning: a neck's summary tokens join the caption head's memory,
    and an auxiliary head on them adds its loss and, optionally, a word
    prior to the head's next-word logits.

    The caption head is :class:`ScratchCaptionHead` (or a head with its
    arguments and inputs): ``memory_dim``, ``max_memory_tokens`` and
    ``num_segments`` default to the backbone's, ``num_extra_tokens`` to the
    neck's token count (0 without a neck).

    - ``neck``: maps the backbone's tokens to summary tokens ``[B, E, D]``
      (e.g. :class:`ChangeSummaryNeck`, built with ``in_channels`` and
      ``segments`` from the backbone); they are the head's
      ``extra_tokens``.
    - ``aux_head``: reads the summary tokens and adds its loss (e.g.
      :class:`BagOfWordsHead`, built with ``in_channels``,
      ``num_classes`` and ``pad_id`` from the neck and the caption head's
      vocabulary; its targets are each sample's ``ref_tokens`` ``[K, L]``,
      the tokens of all its references: ``TokenizeCaptions(mode='all',
      key='ref_tokens')`` in the pipeline). When its ``logit_bias`` is a
      tensor, the head adds it to its teacher-forced logits, and in
      decoding its ``logits_processor`` (a :class:`WordPrior` or
      :class:`CountedWordPrior`) adds it to the search's.

    Without a neck it is :class:`CLIP4IDCCaptioner` with the head's layout
    arguments set. The modules keep the names ``neck`` and ``aux_head``
    (checkpoint keys ``neck.*``, ``aux_head.*``) and are built in the order
    backbone, neck, head, auxiliary head.

    Args:
        backbone (dict): ``CLIP4IDCBackbone`` config.
        head (dict): Caption head config (see above).
        neck (dict, optional): Summary-token neck.
        aux_head (dict, optional): Auxiliary head on the summary tokens;
            needs ``neck``.
        **kwargs: :class:`CLIP4IDCCaptioner`'s other arguments
            (``data_preprocessor``, ``freeze_backbone``, ``decode_cfg``,
            ``init_backbone_from``, ``init_cfg``).
    """

    def __init__(self,
                 backbone: dict,
                 head: dict,
                 neck: Optional[dict] = None,
                 aux_head: Optional[dict] = None,
                 **kwargs):
        if aux_head is not None and neck is None:
            raise ValueError("aux_head reads the neck's summary tokens: "
                             'set a neck too')
        # read by build_head, which the base constructor calls
        self._neck_cfg = neck
        super().__init__(backbone, head, **kwargs)
        del self._neck_cfg
        self.aux_head = None
        if aux_head is not None:
            vocab = self.head.vocab
            self.aux_head = MODELS.build(dict(
                aux_head,
                in_channels=self.neck.num_tokens * self.backbone.output_dim,
                num_classes=len(vocab), pad_id=vocab.pad_id))

    def build_head(self, head: dict) -> nn.Module:
        """Build the neck, then the head with the backbone's and the
        neck's layout as its defaults."""
        backbone = self.backbone
        self.neck = None
        if self._neck_cfg is not None:
            self.neck = MODELS.build(dict(
                self._neck_cfg, in_channels=backbone.output_dim,
                segments=backbone.segments))
        layout = dict(max_memory_tokens=backbone.num_tokens(),
                      num_segments=backbone.num_segments,
                      num_extra_tokens=(self.neck.num_tokens
                                        if self.neck is not None else 0))
        return super().build_head(dict(layout, **head))

    def _condition(self, memory: torch.Tensor):
        """The summary tokens ``[B, E, D]`` and the auxiliary head's word
        logits (each None where there is none)."""
        if self.neck is None:
            return None, None
        summary = self.neck(memory)
        if self.aux_head is None:
            return summary, None
        return summary, self.aux_head(summary)

    def head_inputs(self, memory: torch.Tensor) -> dict:
        """``extra_tokens`` (the summary tokens) and ``logit_bias`` (the
        auxiliary head's word prior), each where there is one."""
        return self._teacher_inputs(*self._condition(memory))

    def _teacher_inputs(self, summary, word_logits) -> dict:
        if summary is None:
            return {}
        inputs = dict(extra_tokens=summary)
        if word_logits is not None:
            bias = self.aux_head.logit_bias(word_logits)
            if bias is not None:
                inputs['logit_bias'] = bias
        return inputs

    def loss(self, inputs: torch.Tensor, data_samples: list) -> dict:
        tokens = stack_text_tokens(data_samples, inputs.device)
        memory = self.extract_feat(inputs)
        summary, word_logits = self._condition(memory)
        losses = self.head.loss(memory, tokens,
                                **self._teacher_inputs(summary, word_logits))
        if self.aux_head is not None:
            losses.update(self.aux_head.loss(word_logits,
                                             self._references(data_samples)))
        return losses

    def _references(self, data_samples: list) -> list:
        """Each sample's ``ref_tokens`` ``[K, L]`` as compact ids."""
        if not all('ref_tokens' in ds for ds in data_samples):
            raise KeyError("aux_head needs every sample's ref_tokens [K, L]: "
                           "add TokenizeCaptions(mode='all', key='ref_tokens') "
                           'to the training pipeline')
        return [self.head.vocab.to_compact(ds.ref_tokens) for ds in data_samples]

    def decoder_inputs(self, inputs: torch.Tensor):
        """The backbone's tokens, the summary tokens (``extra_tokens``) and
        the auxiliary head's word prior as the search's
        ``logits_processors``."""
        memory = self.extract_feat(inputs)
        summary, word_logits = self._condition(memory)
        if summary is None:
            return memory, {}
        kwargs = dict(extra_tokens=summary)
        if word_logits is not None:
            prior = self.aux_head.logits_processor(word_logits)
            if prior is not None:
                kwargs['logits_processors'] = [prior]
        return memory, kwargs
