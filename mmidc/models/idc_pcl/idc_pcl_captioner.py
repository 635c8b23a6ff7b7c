"""IDC-PCL fine-tuning: the pre-trained transformers as a captioner."""
from typing import Dict, Optional

import torch
from mmengine.logging import print_log
from torch import nn

from mmidc.registry import MODELS
from mmidc.utils import read_checkpoint, resolve_checkpoint
from ..generation.base_captioner import BaseCaptioner
from ..layers.transformer_layers import upgrade_fused_qkv
from ..data_preprocessors.caption_tokens import stack_text_tokens
from .idc_pcl_base import SHARED_MODULES, IDCPCLBase
from .masking import mask_caption_tokens

__all__ = ['IDCPCLCaptioner']


@MODELS.register_module()
class IDCPCLCaptioner(BaseCaptioner, IDCPCLBase):
    """Caption the difference between two images with IDC-PCL's trunk.

    Training (UniLM's sequence-to-sequence fine-tuning): the caption
    ``[BOS] w_1 .. w_M [EOS]`` follows the visual tokens under the seq2seq
    mask; ``mask_prob`` of the caption tokens after ``[BOS]`` are masked
    (BERT's 80/10/10) and predicted (``loss_caption``, ``accuracy``). With
    ``distractor_loss``, a linear judge on the ``[IMG1]`` and ``[IMG2]``
    outputs tells change pairs from no-change pairs (``loss_distractor``;
    pairs of ``change_type`` ``'unknown'`` do not count).

    Modes of ``forward(inputs, data_samples, mode)``:

    - ``'loss'``: the losses above.
    - ``'predict'``: :meth:`BaseCaptioner.predict` with ``decode_cfg``
      (``pred_caption`` and ``pred_score`` on each data sample).
    - ``'tensor'``: the visual tokens ``[B, Tv, H]`` that decoding reads.

    ``init_from`` loads a pre-training checkpoint (:class:`IDCPCLPretrainer`;
    a path or a glob pattern, newest match) in ``init_weights``. Every
    parameter of the shared modules (feature encoder, token embedding,
    ``F_sing``, ``F_pair``, ``F_cross``) must be in it: a missing one is a
    ``KeyError`` naming it; the pre-training heads are ignored.

    Args:
        mask_prob (float): Share of caption tokens masked in training.
            Defaults to 0.15 (the published fine-tuning).
        caption_loss (dict): Defaults to ``MaskedLMLoss``.
        distractor_loss (dict, optional): ``DistractorJudgingLoss`` config;
            None: no judge. Defaults to None.
        decode_cfg (dict, optional): ``strategy`` (``'greedy'`` or
            ``'beam'``), ``beam_size`` (3), ``length_penalty`` (1.0),
            ``max_length`` (``F_cross``'s). Defaults to greedy.
        init_from (str, optional): Pre-training checkpoint.
        **trunk: :class:`IDCPCLBase`'s arguments (``feature_encoder``,
            ``cross_modal``, ``hidden``, ... ``init_cfg``).
    """

    def __init__(self,
                 mask_prob: float = 0.15,
                 caption_loss: Optional[dict] = None,
                 distractor_loss: Optional[dict] = None,
                 decode_cfg: Optional[dict] = None,
                 init_from: Optional[str] = None,
                 **trunk):
        super().__init__(**trunk)
        if not 0.0 < mask_prob <= 1.0:
            raise ValueError(f'mask_prob must be in (0, 1], got {mask_prob}')
        self.mask_prob = mask_prob
        self.set_decode_cfg(decode_cfg)
        self.caption_loss = MODELS.build(caption_loss or dict(type='MaskedLMLoss'))
        self.distractor_loss = (MODELS.build(distractor_loss)
                                if distractor_loss is not None else None)
        self.distractor_head = (nn.Linear(2 * self.hidden, 2)
                                if distractor_loss is not None else None)
        self.init_from = init_from

    # ------------------------------------------------------------- weights
    def init_weights(self):
        super().init_weights()
        if self.init_from is not None:
            self.load_pretrained(self.init_from)

    def load_pretrained(self, path: str) -> None:
        """Load the shared modules from a pre-training checkpoint (see the
        class docstring)."""
        path = resolve_checkpoint(path)
        state = upgrade_fused_qkv(read_checkpoint(path)[0])
        own = self.state_dict()
        wanted = [k for k in own if k.split('.', 1)[0] in SHARED_MODULES]
        missing = [k for k in wanted if k not in state]
        if missing:
            raise KeyError(f'init_from={path!r}: no {missing[0]!r} in the '
                           f'checkpoint ({len(missing)} shared keys missing; '
                           'a pre-training run of another architecture?)')
        self.load_state_dict({k: state[k] for k in wanted}, strict=False)
        print_log(f'IDC-PCL captioner initialised from {path} '
                  f'({len(wanted)} tensors)', logger='current')

    # -------------------------------------------------------------- forward
    def forward(self, inputs: torch.Tensor, data_samples: Optional[list] = None,
                mode: str = 'tensor'):
        if mode == 'loss':
            return self.loss(inputs, data_samples)
        if mode == 'predict':
            return self.predict(inputs, data_samples)
        if mode == 'tensor':
            return self.visual_tokens(self.extract_feat(inputs))
        raise ValueError(f'mode={mode!r}: expected loss, predict or tensor')

    def loss(self, inputs: torch.Tensor, data_samples: list) -> Dict:
        cm = self.cross_modal
        tokens = stack_text_tokens(data_samples, inputs.device)  # [B, L]
        ids, valid = cm.caption_ids(tokens)  # [B, L'] each
        maskable = valid.clone()
        maskable[:, 0] = False  # [BOS] is given, never predicted
        masked, targets = mask_caption_tokens(ids, maskable, self.mask_prob,
                                              cm.mask_id, (2, cm.num_words))
        visual = self.visual_tokens(self.extract_feat(inputs))  # [B, Tv, H]
        hidden = cm(visual, masked, valid, 'seq2seq')  # [B, Tv + L', H]
        text = hidden[:, visual.shape[1]:]  # [B, L', H]
        chosen = targets != -100
        logits = cm.word_logits(text[chosen])  # [M, V]
        losses = dict(loss_caption=self.caption_loss(logits, targets[chosen]))
        losses['accuracy'] = (logits.argmax(-1) == targets[chosen]).float().mean().detach()
        if self.distractor_loss is not None:
            img1, img2 = self.image_token_outputs(hidden)  # [B, H] each
            judge = self.distractor_head(torch.cat([img1, img2], -1))  # [B, 2]
            labels = torch.tensor([self.distractor_label(ds) for ds in data_samples],
                                  device=judge.device)
            losses['loss_distractor'] = self.distractor_loss(judge, labels)
        return losses

    @staticmethod
    def distractor_label(data_sample) -> int:
        """1 for a change pair, 0 for a no-change pair, -100 when unknown."""
        change_type = data_sample.get('change_type', 'unknown')
        if change_type == 'unknown':
            return -100
        return 0 if change_type == 'none' else 1

    @property
    def caption_decoder(self):
        return self.cross_modal

    def decoder_inputs(self, inputs: torch.Tensor):
        """The visual tokens ``[B, Tv, H]`` that ``F_cross`` decodes from."""
        return self.visual_tokens(self.extract_feat(inputs)), {}
