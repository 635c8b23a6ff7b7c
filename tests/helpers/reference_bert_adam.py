"""The per-tensor BertAdam update as first written, kept as the reference
that :class:`mmidc.engine.BertAdam`'s faster paths are compared against.

One temporary per operation (the clipped gradient, ``sqrt(v)``, the
denominator, the update): the published code's formula, written out.
"""
from typing import List

import torch

from mmidc.engine import BertAdam


class ReferenceBertAdam(BertAdam):
    """:class:`~mmidc.engine.BertAdam` whose per-tensor update is the
    reference loop below (``foreach=False`` to use it)."""

    def _update(self, group: dict, params: List[torch.Tensor]) -> None:
        beta1, beta2 = group['betas']
        max_norm = group['max_grad_norm']
        for p in params:
            grad = p.grad
            if max_norm > 0:
                norm = torch.linalg.vector_norm(
                    grad, dtype=torch.promote_types(grad.dtype, torch.float32))
                grad = grad * (max_norm / (norm + 1e-6)).clamp(max=1.0)
            m, v = self.state[p]['exp_avg'], self.state[p]['exp_avg_sq']
            m.mul_(beta1).add_(grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            update = m / (v.sqrt() + group['eps'])
            if group['weight_decay'] > 0.0:
                update.add_(p, alpha=group['weight_decay'])
            p.add_(update, alpha=-group['lr'])
