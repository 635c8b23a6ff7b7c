"""CLIP4IDC captioning stage: pair encoder + Transformer caption head."""
from typing import Optional

import torch
from mmengine.logging import print_log
from mmengine.model import BaseModel
from torch import nn

from ..generation.base_captioner import BaseCaptioner
from ..data_preprocessors.caption_tokens import stack_text_tokens
from mmidc.utils.checkpoint_pattern import resolve_checkpoint
from ..data_preprocessors import build_data_preprocessor
from mmidc.registry import MODELS
from ..open_clip import load_clip_state_dict, load_tower_weights, vision_state_dict

__all__ = ['CLIP4IDCCaptioner']


@MODELS.register_module()
class CLIP4IDCCaptioner(BaseCaptioner, BaseModel):
    """Caption the difference between two images (CLIP4IDC, second stage):
    the backbone's ``2(n+1)`` pair tokens feed a caption head.

    The head is :class:`TransformerCaptionHead` (the paper's) or any
    registered caption head that reads the backbone's tokens ``[B, T, D]``
    as its ``memory``: a :class:`BaseCaptionHead` (``forward(memory,
    text_tokens)``, ``loss(memory, text_tokens)``, the
    :class:`CaptionGenerator` search) that takes ``memory_dim``, which
    defaults to the backbone's width ``D``.

    Modes of ``forward(inputs, data_samples, mode)`` (``inputs`` is the
    preprocessed ``[B, 2, 3, H, W]``):

    - ``'loss'``: teacher forcing on each sample's ``text_tokens`` ``[L]``;
      returns ``loss_caption`` and ``accuracy``.
    - ``'predict'``: :meth:`BaseCaptioner.predict` with ``decode_cfg``
      (``pred_caption`` and ``pred_score`` on each data sample).
    - ``'tensor'``: teacher-forced logits ``[B, L-1, V]`` over the head's
      vocabulary (needs ``text_tokens``).

    Loading the adaptation stage (``init_backbone_from``): the
    ``backbone.*`` weights of a :class:`CLIP4IDCRetriever` checkpoint (or
    of any file :func:`load_clip_state_dict` reads), as they are; every
    backbone key, the inter-image parameters included, must be there (a
    missing one is a ``KeyError`` naming it). This happens in the
    constructor, so a later ``load_from``/``resume`` of a captioner
    checkpoint overrides it.

    A subclass that gives the head further inputs (e.g. the from-scratch
    project's ``ConditionedCaptioner``) overrides :meth:`build_head` (to
    build their sources before the head), :meth:`head_inputs` (what the head
    reads besides the memory, in every mode) and, for further losses,
    :meth:`loss`.

    Separate learning rates: ``optim_wrapper = dict(..., paramwise_cfg=dict(
    custom_keys={'backbone': dict(lr_mult=1e-3)}))`` (paper: 1e-7 / 1e-4).

    Args:
        backbone (dict): ``CLIP4IDCBackbone`` config.
        head (dict): Caption head config; ``memory_dim`` defaults to the
            backbone's width.
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
        self.head = self.build_head(head)
        if init_backbone_from is not None:
            self.load_backbone(init_backbone_from)
        self.freeze_backbone = freeze_backbone
        if freeze_backbone:
            self.backbone.requires_grad_(False)
            self.backbone.eval()

    def build_head(self, head: dict) -> nn.Module:
        """The caption head of config ``head``, ``memory_dim`` defaulting to
        the backbone's width (called once the backbone is built)."""
        return MODELS.build(dict(dict(memory_dim=self.backbone.output_dim),
                                 **head))

    def load_backbone(self, path: str) -> None:
        """Load ``backbone.*`` weights of an adaptation-stage checkpoint.

        ``path`` may be a glob pattern (``work_dirs/<run>/best_rsum_*.pth``):
        the newest match is loaded, and no match is a ``FileNotFoundError``
        naming the pattern (:func:`mmidc.utils.resolve_checkpoint`).
        """
        try:
            path = resolve_checkpoint(path)
        except FileNotFoundError as error:
            raise FileNotFoundError(
                f'init_backbone_from: {error}. The shipped captioning configs '
                "read '{adapt_work_dir}/best_rsum_*.pth': set adapt_work_dir in "
                'your config to the work dir of your adaptation run, or '
                'model.init_backbone_from=None to caption without adaptation.'
            ) from None
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
            return self.head(memory, tokens, **self.head_inputs(memory))
        raise ValueError(f'mode={mode!r}: expected loss, predict or tensor')

    def head_inputs(self, memory: torch.Tensor) -> dict:
        """The caption head's inputs besides the backbone's tokens
        ``memory`` ``[B, T, D]``, as keyword arguments of its ``forward``,
        ``loss`` and search: none here."""
        return {}

    def loss(self, inputs: torch.Tensor, data_samples: list) -> dict:
        tokens = stack_text_tokens(data_samples, inputs.device)
        memory = self.extract_feat(inputs)
        return self.head.loss(memory, tokens, **self.head_inputs(memory))

    @property
    def caption_decoder(self):
        return self.head

    def decoder_inputs(self, inputs: torch.Tensor):
        """The backbone's tokens and :meth:`head_inputs`, what the head
        decodes from."""
        memory = self.extract_feat(inputs)
        return memory, self.head_inputs(memory)
