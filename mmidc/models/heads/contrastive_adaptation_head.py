"""Symmetric InfoNCE between image-pair and caption embeddings."""
import logging
import math
from typing import Dict, Optional

import torch
import torch.distributed as dist
import torch.nn.functional as F
from mmengine.logging import print_log
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
    """Symmetric InfoNCE with a learnable temperature (CLIP4IDC's L).

    ``L = L_p2t + L_t2p`` (summed, as the paper writes it) or, with
    ``two_way_reduction='mean'``, ``(L_p2t + L_t2p) / 2`` (the published
    code's and CLIP's average); each term is the cross-entropy of
    cosine-similarity logits scaled by ``exp(logit_scale)``.

    The temperature is bounded at ``max_logit_scale`` (``ln 100``) in one of
    two ways:

    - ``clamp_in_forward=True``: the forward pass uses
      ``min(logit_scale, max)``. At or above the bound the gradient of
      ``logit_scale`` is zero, so a scale that starts there (OpenAI's
      checkpoint holds ``ln 100``) can never move.
    - ``clamp_in_forward=False``: the forward pass uses the parameter as it
      is and :meth:`clamp_logit_scale_` clamps the parameter after each
      optimizer step (register :class:`~mmidc.engine.LogitScaleClampHook`),
      as CLIP's own training and the published CLIP4IDC code do: the
      gradient is never cut off and the parameter never exceeds the bound
      after a step.

    Duplicate captions: captions with identical token sequences in a batch
    (frequent on CLEVR-Change: "the scene remains the same") are all
    positives of each other's pairs. The target of row ``i`` is the uniform
    distribution over ``{j : tokens_j == tokens_i}`` (soft multi-positive
    cross-entropy), in both directions. Without duplicates this is the plain
    one-hot InfoNCE; ``multi_positive=False`` always is (the published code:
    a duplicate caption is a negative of the other pairs it describes).

    Under DDP (``torch.distributed`` initialised, world size > 1) pair and
    text features and tokens are gathered from all ranks, so negatives span
    the global batch; every rank computes the global loss, and gradients of
    all ranks' copies flow back to the local features (see
    :func:`gather_with_grad`), so DDP's gradient average gives the exact
    gradient of the global loss. (The published code's gather passes back
    only this rank's copy of the gradient, so after DDP's average its
    gradients are ``1/W`` of the global loss's, W the world size: the same
    direction; with Adam-type updates the steps differ mainly where the
    gradient clipping is active.)

    Args:
        init_logit_scale (float): Initial ``logit_scale`` (log of the inverse
            temperature). Default ``ln(1 / 0.07)``, CLIP's; the retriever
            overwrites it with a checkpoint's ``logit_scale``. (The published
            code starts from 1.0 before loading CLIP.)
        max_logit_scale (float): The bound. Default ``ln 100``.
        clamp_in_forward (bool): Clamp in the forward pass (True) or leave
            the clamp to :meth:`clamp_logit_scale_` after each step (False).
            Default True.
        learnable_scale (bool): Train ``logit_scale``. Default True.
        multi_positive (bool): Treat identical captions as positives (see
            above). False gives plain InfoNCE (duplicates as negatives).
        two_way_reduction (str): ``'sum'`` (default) or ``'mean'`` of the
            two directions. With ``'mean'`` the returned ``loss_p2t`` and
            ``loss_t2p`` are each half of their direction's cross-entropy,
            so that their sum, the training loss, is the average.
        loss_weight (float): Multiplier of both terms. Default 1.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 init_logit_scale: float = math.log(1 / 0.07),
                 max_logit_scale: float = math.log(100),
                 clamp_in_forward: bool = True,
                 learnable_scale: bool = True,
                 multi_positive: bool = True,
                 two_way_reduction: str = 'sum',
                 loss_weight: float = 1.0,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        if init_logit_scale > max_logit_scale:
            raise ValueError(f'init_logit_scale={init_logit_scale} exceeds '
                             f'max_logit_scale={max_logit_scale}')
        if two_way_reduction not in ('sum', 'mean'):
            raise ValueError(f"two_way_reduction must be 'sum' or 'mean', "
                             f'got {two_way_reduction!r}')
        self.logit_scale = nn.Parameter(torch.tensor(float(init_logit_scale)),
                                        requires_grad=learnable_scale)
        self.max_logit_scale = max_logit_scale
        self.clamp_in_forward = clamp_in_forward
        self.multi_positive = multi_positive
        self.two_way_reduction = two_way_reduction
        self.loss_weight = loss_weight
        # Set by LogitScaleClampHook when it takes over the clamp.
        self.clamped_after_step = False
        self._warned_unclamped = False

    def clamp_logit_scale_(self) -> None:
        """Clamp the parameter to ``max_logit_scale`` in place (after an
        optimizer step; see :class:`~mmidc.engine.LogitScaleClampHook`)."""
        with torch.no_grad():
            self.logit_scale.clamp_(max=self.max_logit_scale)

    def scale(self) -> torch.Tensor:
        """``exp(logit_scale)`` as the forward pass uses it."""
        if self.clamp_in_forward:
            return self.logit_scale.clamp(max=self.max_logit_scale).exp()
        if self.training and not (self.clamped_after_step
                                  or self._warned_unclamped):
            self._warned_unclamped = True
            print_log(
                'ContrastiveAdaptationHead: clamp_in_forward=False but no '
                'LogitScaleClampHook clamps logit_scale after each step; add '
                "dict(type='LogitScaleClampHook') to custom_hooks",
                logger='current', level=logging.WARNING)
        return self.logit_scale.exp()

    def logits(self, pair_feats: torch.Tensor,
               text_feats: torch.Tensor) -> torch.Tensor:
        """Scaled cosine similarities ``[B_pairs, B_texts]`` (fp32)."""
        pair = F.normalize(pair_feats.float(), dim=-1)
        text = F.normalize(text_feats.float(), dim=-1)
        return self.scale() * pair @ text.t()

    def targets(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """Soft targets ``[B, B]``: uniform over identical captions."""
        if not self.multi_positive:
            return torch.eye(text_tokens.shape[0], device=text_tokens.device)
        same = (text_tokens[:, None, :] == text_tokens[None, :, :]).all(-1)
        same = same.float()  # [B, B], symmetric, diagonal 1
        return same / same.sum(dim=1, keepdim=True)

    def loss(self, pair_feats: torch.Tensor, text_feats: torch.Tensor,
             text_tokens: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Contrastive loss of matching pairs and captions.

        Args:
            pair_feats (Tensor): Pair embeddings ``[B, D]``.
            text_feats (Tensor): Caption embeddings ``[B, D]``; row i
                describes pair i.
            text_tokens (Tensor): Caption token ids ``[B, L]`` (to find
                duplicate captions).

        Returns:
            dict: ``loss_p2t``, ``loss_t2p`` (halved with
            ``two_way_reduction='mean'``) and ``logit_scale`` (the inverse
            temperature the logits used, for logging; not a loss).
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
        # reproduce. tests/test_models/test_heads/test_contrastive_head.py
        # checks that the two agree to float precision.
        logits = self.logits(pair_feats, text_feats)  # [B, B] pair x text
        targets = self.targets(text_tokens)  # [B, B], rows sum to 1
        # pair i -> its captions; caption j -> the pairs it describes.
        # ``same`` is symmetric, so both directions use the same targets.
        loss_p2t = -(targets * logits.log_softmax(dim=1)).sum(1).mean()
        loss_t2p = -(targets * logits.t().log_softmax(dim=1)).sum(1).mean()
        weight = self.loss_weight
        if self.two_way_reduction == 'mean':
            weight = weight / 2
        return dict(
            loss_p2t=weight * loss_p2t,
            loss_t2p=weight * loss_t2p,
            logit_scale=self.scale().detach())
