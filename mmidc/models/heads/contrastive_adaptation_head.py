"""The contrastive adaptation head: scaled pair-caption similarities and
their loss."""
import math
from typing import Dict, Optional

import torch
import torch.distributed as dist
import torch.nn.functional as F
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS

__all__ = ['ContrastiveAdaptationHead', 'gather_with_grad']


class _GatherWithGrad(torch.autograd.Function):
    """All-gather along dim 0; backward sums the gradients of every rank's
    copy and returns this rank's slice (a reduce-scatter via all_reduce,
    which every backend supports). Local batch sizes may differ."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        world, rank = dist.get_world_size(), dist.get_rank()
        size = torch.tensor([x.shape[0]], device=x.device)
        sizes = [torch.zeros_like(size) for _ in range(world)]
        dist.all_gather(sizes, size)
        sizes = [int(s.item()) for s in sizes]
        padded = x.new_zeros((max(sizes), *x.shape[1:]))
        padded[:x.shape[0]] = x
        chunks = [torch.empty_like(padded) for _ in range(world)]
        dist.all_gather(chunks, padded.contiguous())
        ctx.start = sum(sizes[:rank])
        ctx.size = x.shape[0]
        return torch.cat([c[:s] for c, s in zip(chunks, sizes)])

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        grad = grad.contiguous()
        dist.all_reduce(grad)
        return grad[ctx.start:ctx.start + ctx.size]


def gather_with_grad(x: torch.Tensor) -> torch.Tensor:
    """Concatenate ``x`` from all ranks (identity when not distributed)."""
    if not (dist.is_available() and dist.is_initialized()) or \
            dist.get_world_size() == 1:
        return x
    return _GatherWithGrad.apply(x)


@MODELS.register_module()
class ContrastiveAdaptationHead(BaseModule):
    """CLIP4IDC's adaptation objective: cosine similarities of pair and
    caption embeddings, scaled by a learnable inverse temperature
    ``exp(logit_scale)``, under a contrastive ``loss`` (the paper's
    :class:`SymmetricInfoNCELoss` by default).

    The temperature is bounded at ``max_logit_scale`` (``ln 100``):

    - by default the forward pass uses ``min(logit_scale, max)``: at or
      above the bound the gradient of ``logit_scale`` is zero;
    - with :class:`~mmidc.engine.LogitScaleClampHook` in ``custom_hooks``
      the forward pass uses the parameter as it is and the hook clamps it
      after each optimizer step (:meth:`clamp_logit_scale_`): the gradient
      is never cut off and the parameter never exceeds the bound after a
      step.

    Under DDP (``torch.distributed`` initialised, world size > 1) pair and
    text features and tokens are gathered from all ranks, so negatives span
    the global batch; every rank computes the global loss, and gradients of
    all ranks' copies flow back to the local features (see
    :func:`gather_with_grad`), so DDP's gradient average gives the exact
    gradient of the global loss.

    Args:
        init_logit_scale (float): Initial ``logit_scale`` (log of the inverse
            temperature). Default ``ln(1 / 0.07)``, CLIP's; the retriever
            overwrites it with a checkpoint's ``logit_scale``.
        max_logit_scale (float): The bound. Default ``ln 100``.
        learnable_scale (bool): Train ``logit_scale``. Default True.
        loss (dict): Config of the contrastive loss, called with the logits
            ``[B, B]`` and the caption tokens ``[B, L]`` (e.g.
            :class:`MultiPositiveInfoNCELoss`, where identical captions are
            positives of each other's pairs). Default
            ``dict(type='SymmetricInfoNCELoss')``.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 init_logit_scale: float = math.log(1 / 0.07),
                 max_logit_scale: float = math.log(100),
                 learnable_scale: bool = True,
                 loss: dict = dict(type='SymmetricInfoNCELoss'),
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        if init_logit_scale > max_logit_scale:
            raise ValueError(f'init_logit_scale={init_logit_scale} exceeds '
                             f'max_logit_scale={max_logit_scale}')
        self.logit_scale = nn.Parameter(torch.tensor(float(init_logit_scale)),
                                        requires_grad=learnable_scale)
        self.max_logit_scale = max_logit_scale
        self.loss_module = MODELS.build(loss)
        # Set by LogitScaleClampHook when it takes over the bound.
        self.clamped_after_step = False

    def clamp_logit_scale_(self) -> None:
        """Clamp the parameter to ``max_logit_scale`` in place (after an
        optimizer step; see :class:`~mmidc.engine.LogitScaleClampHook`)."""
        with torch.no_grad():
            self.logit_scale.clamp_(max=self.max_logit_scale)

    def scale(self) -> torch.Tensor:
        """``exp(logit_scale)`` as the forward pass uses it."""
        if self.clamped_after_step:
            return self.logit_scale.exp()
        return self.logit_scale.clamp(max=self.max_logit_scale).exp()

    def logits(self, pair_feats: torch.Tensor,
               text_feats: torch.Tensor) -> torch.Tensor:
        """Scaled cosine similarities ``[B_pairs, B_texts]`` (fp32)."""
        pair = F.normalize(pair_feats.float(), dim=-1)
        text = F.normalize(text_feats.float(), dim=-1)
        return self.scale() * pair @ text.t()

    def loss(self, pair_feats: torch.Tensor, text_feats: torch.Tensor,
             text_tokens: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Contrastive loss of matching pairs and captions.

        Args:
            pair_feats (Tensor): Pair embeddings ``[B, D]``.
            text_feats (Tensor): Caption embeddings ``[B, D]``; row i
                describes pair i.
            text_tokens (Tensor): Caption token ids ``[B, L]``.

        Returns:
            dict: The loss's terms (``loss_p2t``, ``loss_t2p``) and
            ``logit_scale`` (the inverse temperature the logits used, for
            logging; not a loss).
        """
        if not (pair_feats.shape[0] == text_feats.shape[0]
                == text_tokens.shape[0]):
            raise ValueError(f'batch sizes differ: pairs {pair_feats.shape},'
                             f' texts {text_feats.shape}, tokens '
                             f'{text_tokens.shape}')
        pair_feats = gather_with_grad(pair_feats)  # [B_global, D]
        text_feats = gather_with_grad(text_feats)  # [B_global, D]
        text_tokens = gather_with_grad(text_tokens)  # [B_global, L]
        # Not open_clip's ClipLoss, even for single positives: it has no
        # multi-positive targets, no per-direction terms, needs the same
        # batch on every rank, and it is not bit-identical to this loss
        # (it computes text @ image.T apart from its transpose and halves
        # the sum: the loss differs by up to 5e-7 in half of random batches
        # and the gradients in every one), so existing runs would not
        # reproduce. tests/test_models/test_heads/test_contrastive_adaptation_head.py
        # checks that the two agree to float precision.
        logits = self.logits(pair_feats, text_feats)  # [B, B] pair x text
        losses = self.loss_module(logits, text_tokens)
        return dict(losses, logit_scale=self.scale().detach())
