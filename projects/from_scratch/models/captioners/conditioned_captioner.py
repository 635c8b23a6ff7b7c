"""ConditionedCaptioner: CLIP4IDC's captioner whose caption head is also
conditioned on summary tokens and an auxiliary head's word prior."""
import inspect
from typing import Optional

import torch
from mmengine.logging import print_log
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

    The caption head is :class:`ScratchCaptionHead` or any caption head:
    ``memory_dim`` defaults to the backbone's width, and of
    ``max_memory_tokens``, ``num_segments`` (the backbone's) and
    ``num_extra_tokens`` (the neck's token count, 0 without a neck) each
    one the head's class declares defaults so; a head that declares none
    of them (e.g. :class:`TransformerCaptionHead`) gets none.

    What it composes is what its config names, nothing more: ``neck`` and
    ``aux_head`` are ``None`` unless given, and a head must take what they
    give it (``extra_tokens``: a parameter of its ``encode`` or
    ``teacher_logits``; the word prior ``logit_bias``: of its
    ``teacher_logits``), or the build stops naming the setting to drop. The
    build logs what it composes (backbone, neck, head, auxiliary head and
    whether its word prior reaches the head's logits). A config derived
    from the recipe's that swaps only ``model.head`` keeps the recipe's
    neck and auxiliary head: for a comparison of heads alone, set
    ``model.neck=None`` and ``model.aux_head=None`` as well.

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
            if self.word_prior and not _takes(self.head, 'logit_bias',
                                              ('teacher_logits', )):
                raise TypeError(
                    f'aux_head={type(self.aux_head).__name__} adds a word '
                    f'prior to the head\'s logits, but '
                    f'{type(self.head).__name__} takes no logit_bias: set '
                    'model.aux_head=None (or its word_prior=False)')
        print_log(f'ConditionedCaptioner composes: {self.composition()}',
                  logger='current')

    @property
    def word_prior(self) -> bool:
        """Whether the auxiliary head's word prior reaches the logits."""
        return bool(getattr(self.aux_head, 'has_word_prior', False))

    def composition(self) -> str:
        """What the model is made of, one line (logged at build)."""
        def name(module):
            return 'none' if module is None else type(module).__name__

        parts = [f'backbone {name(self.backbone)}', f'neck {name(self.neck)}',
                 f'head {name(self.head)}', f'aux_head {name(self.aux_head)}']
        if self.aux_head is not None:
            parts[-1] += (' (its loss and its word prior on the head\'s '
                          'logits)' if self.word_prior else ' (its loss)')
        return ', '.join(parts)

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
        declared = _declared(head['type'])
        built = super().build_head(dict(
            {k: v for k, v in layout.items() if k in declared}, **head))
        if self.neck is not None and not _takes(
                built, 'extra_tokens', ('encode', 'teacher_logits')):
            raise TypeError(
                f'neck={type(self.neck).__name__} gives the caption head '
                f'summary tokens (extra_tokens), but {type(built).__name__} '
                'takes none: set model.neck=None and model.aux_head=None, '
                'or use a head that reads them')
        return built

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


def _declared(head_type) -> set:
    """The arguments a head's class names in its constructor."""
    cls = MODELS.get(head_type) if isinstance(head_type, str) else head_type
    if cls is None:
        raise KeyError(f'head type {head_type!r} is not registered '
                       '(custom_imports of its project?)')
    return set(inspect.signature(cls.__init__).parameters)


def _takes(head: nn.Module, name: str, methods: tuple) -> bool:
    """Whether one of the head's ``methods`` names the input ``name``."""
    return any(name in inspect.signature(getattr(head, m)).parameters
               for m in methods if hasattr(head, m))
