"""CLIP4IDC captioning stage: pair encoder + Transformer caption head."""
import copy
import inspect
from typing import Optional

import torch
from mmengine.logging import print_log
from mmengine.model import BaseModel

from ..utils.base_captioner import BaseCaptioner
from ..utils.caption_batch import stack_text_tokens
from mmidc.utils.checkpoint_pattern import resolve_checkpoint
from ..data_preprocessors import build_data_preprocessor
from mmidc.registry import MODELS
from ..open_clip import load_clip_state_dict, load_tower_weights, vision_state_dict

__all__ = ['CLIP4IDCCaptioner']


def _arguments_of(head_type) -> set:
    """The keyword arguments a registered head's constructor takes."""
    cls = MODELS.get(head_type) if isinstance(head_type, str) else head_type
    if cls is None:
        raise KeyError(f'{head_type!r} is not a registered model component')
    return set(inspect.signature(cls.__init__).parameters)


@MODELS.register_module()
class CLIP4IDCCaptioner(BaseCaptioner, BaseModel):
    """Caption the difference between two images (CLIP4IDC, second stage).

    The backbone's ``2(n+1)`` tokens feed a caption head
    (:class:`TransformerCaptionHead`, the paper's, or any registered caption head,
    e.g. the from-scratch project's ``ScratchCaptionHead``).
    Modes of ``forward(inputs, data_samples, mode)`` (``inputs`` is the
    preprocessed ``[B, 2, 3, H, W]``):

    - ``'loss'``: teacher forcing on each sample's ``text_tokens`` ``[L]``;
      returns ``loss_caption`` and ``accuracy`` (and the auxiliary head's
      losses when there is one).
    - ``'predict'``: decodes with ``decode_cfg`` and sets ``pred_caption``
      (str) and ``pred_score`` (float, mean log-prob per token) on each
      data sample.
    - ``'tensor'``: teacher-forced logits ``[B, L-1, V]`` over the head's
      vocabulary (needs ``text_tokens``).

    Loading the adaptation stage (``init_backbone_from``): an MMEngine
    checkpoint of :class:`CLIP4IDCRetriever` (or any state dict with
    ``backbone.*`` keys, ``module.`` prefixes stripped, ``.safetensors``
    too). The mapping is ``backbone.X -> backbone.X``; ``text_encoder.*``
    and ``head.*`` are dropped. Every backbone key must be present (the
    inter-image parameters included): a missing one is a ``KeyError``
    naming it. The file is read with ``torch.load(weights_only=True)``.
    This happens in the constructor, so a later ``load_from``/``resume`` of
    a captioner checkpoint overrides it.

    Optional components (none in the paper's configs; the from-scratch
    project, projects/from_scratch, uses both):

    - ``neck``: maps the backbone's tokens to a few summary tokens
      ``[B, E, D]`` (e.g. ``ChangeSummaryNeck``, built with
      ``in_channels`` and ``segments`` from the backbone); they join the
      caption head's memory as its ``extra_tokens`` (a head that takes
      them: e.g. ``ScratchCaptionHead``).
    - ``aux_head``: reads the neck's tokens and adds its loss (e.g.
      ``BagOfWordsHead``, built with ``in_channels``, ``num_classes``
      and ``pad_id`` from the neck and the caption head's vocabulary; its
      targets come from each sample's ``ref_tokens`` ``[K, L]``, the tokens
      of all its references: ``TokenizeCaptions(mode='all',
      key='ref_tokens')`` in the pipeline). When its ``logit_bias`` returns a
      tensor, it is the caption head's ``logit_bias``, added to its
      next-word logits (and by the search, in decoding).

    Separate learning rates: ``optim_wrapper = dict(..., paramwise_cfg=dict(
    custom_keys={'backbone': dict(lr_mult=1e-3)}))`` (paper: 1e-7 / 1e-4).

    Args:
        backbone (dict): ``CLIP4IDCBackbone`` config.
        head (dict): Caption head config. ``memory_dim``,
            ``max_memory_tokens``, ``num_segments`` and ``num_extra_tokens``
            default to the backbone's and the neck's, for a head that takes
            them.
        neck (dict, optional): Summary-token neck (see above).
        aux_head (dict, optional): Auxiliary head on the neck's tokens (see
            above); needs ``neck``.
        data_preprocessor (dict, optional): Default ``IDCDataPreprocessor``.
        freeze_backbone (bool): No gradients into the backbone, kept in eval
            mode. Defaults to False.
        decode_cfg (dict, optional): ``strategy`` (``'greedy'`` or
            ``'beam'``), ``beam_size`` (3), ``length_penalty`` (1.0),
            ``max_length`` (the head's). Defaults to greedy.
        init_backbone_from (str, optional): adaptation-stage checkpoint, a
            path or a glob pattern (the newest match is used).
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 backbone: dict,
                 head: dict,
                 neck: Optional[dict] = None,
                 aux_head: Optional[dict] = None,
                 data_preprocessor: Optional[dict] = None,
                 freeze_backbone: bool = False,
                 decode_cfg: Optional[dict] = None,
                 init_backbone_from: Optional[str] = None,
                 init_cfg: Optional[dict] = None):
        super().__init__(
            data_preprocessor=build_data_preprocessor(data_preprocessor),
            init_cfg=init_cfg)
        self.set_decode_cfg(decode_cfg)
        self.backbone = MODELS.build(backbone)
        width = self.backbone.output_dim
        self.neck = None
        if neck is not None:
            self.neck = MODELS.build(dict(neck, in_channels=width,
                                          segments=self.backbone.segments))
        head = copy.deepcopy(head)
        takes = _arguments_of(head['type'])
        layout = dict(memory_dim=width,
                      max_memory_tokens=self.backbone.num_tokens(),
                      num_segments=self.backbone.num_segments,
                      num_extra_tokens=(self.neck.num_tokens
                                        if self.neck is not None else 0))
        if self.neck is not None and 'num_extra_tokens' not in takes:
            raise ValueError(f"the neck's summary tokens join the caption "
                             f"head's memory: {head['type']} does not take "
                             'extra tokens (the from-scratch project\'s '
                             'ScratchCaptionHead does)')
        for key, value in layout.items():
            if key in takes:
                head.setdefault(key, value)
        self.head = MODELS.build(head)
        self.aux_head = None
        if aux_head is not None:
            if self.neck is None:
                raise ValueError('aux_head reads the neck\'s summary tokens: '
                                 'set a neck too')
            vocab = self.head.vocab
            self.aux_head = MODELS.build(dict(
                aux_head, in_channels=self.neck.num_tokens * width,
                num_classes=len(vocab), pad_id=vocab.pad_id))
        if init_backbone_from is not None:
            self.load_backbone(init_backbone_from)
        self.freeze_backbone = freeze_backbone
        if freeze_backbone:
            self.backbone.requires_grad_(False)
            self.backbone.eval()

    def load_backbone(self, path: str) -> None:
        """Load ``backbone.*`` weights of an adaptation-stage checkpoint.

        ``path`` may be a glob pattern (``work_dirs/<run>/best_rsum_*.pth``):
        the newest match is loaded, and no match is a ``FileNotFoundError``
        naming the pattern (:func:`mmidc.utils.resolve_checkpoint`).
        """
        path = resolve_checkpoint(path)
        state = vision_state_dict(load_clip_state_dict(path))  # backbone.X -> X
        if not state:
            raise KeyError(f'init_backbone_from={path!r}: no backbone.* keys '
                           'in the checkpoint')
        load_tower_weights(self.backbone, state, path)
        print_log(f'captioner backbone loaded from {path}', logger='current')

    def train(self, mode: bool = True):
        super().train(mode)
        if self.freeze_backbone:
            self.backbone.eval()
        return self

    # ---------------------------------------------------------------- forward
    def extract_feat(self, inputs: torch.Tensor) -> torch.Tensor:
        """``[B, 2, 3, H, W]`` -> backbone tokens ``[B, S(n+1), D]``."""
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.freeze_backbone):
            return self.backbone(inputs[:, 0], inputs[:, 1])

    def forward(self, inputs: torch.Tensor, data_samples: Optional[list] = None,
                mode: str = 'tensor'):
        if mode == 'loss':
            return self.loss(inputs, data_samples)
        if mode == 'predict':
            return self.predict(inputs, data_samples)
        if mode == 'tensor':
            tokens = stack_text_tokens(data_samples, inputs.device)
            memory = self.extract_feat(inputs)
            _, head_inputs = self.condition(memory)
            return self.head(memory, tokens, **head_inputs)
        raise ValueError(f'mode={mode!r}: expected loss, predict or tensor')

    def condition(self, memory: torch.Tensor):
        """The auxiliary head's word logits ``[B, V]`` (None without it) and
        the caption head's further inputs: the neck's summary tokens
        ``extra_tokens`` ``[B, E, D]`` and the auxiliary head's
        ``logit_bias`` ``[B, V]``, each only where there is one."""
        if self.neck is None:
            return None, {}
        summary = self.neck(memory)
        if self.aux_head is None:
            return None, dict(extra_tokens=summary)
        logits = self.aux_head(summary)
        bias = self.aux_head.logit_bias(logits)
        head_inputs = dict(extra_tokens=summary)
        if bias is not None:
            head_inputs['logit_bias'] = bias
        return logits, head_inputs

    def loss(self, inputs: torch.Tensor, data_samples: list) -> dict:
        tokens = stack_text_tokens(data_samples, inputs.device)
        memory = self.extract_feat(inputs)
        word_logits, head_inputs = self.condition(memory)
        losses = self.head.loss(memory, tokens, **head_inputs)
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

    @property
    def caption_decoder(self):
        return self.head

    def decoder_inputs(self, inputs: torch.Tensor):
        """The backbone's tokens and the neck's and auxiliary head's
        conditioning, what the head decodes from."""
        memory = self.extract_feat(inputs)
        return memory, self.condition(memory)[1]
