"""Adam without bias correction, with per-parameter clipping (BERT's)."""
from typing import Callable, Iterable, List, Optional, Tuple

import torch
from torch.optim import Optimizer

from mmidc.registry import OPTIMIZERS

__all__ = ['BertAdam']


@OPTIMIZERS.register_module()
class BertAdam(Optimizer):
    """The Adam variant of the original BERT code.

    For every parameter ``p`` with a gradient ``g``, one step is::

        g = g * min(1, max_grad_norm / (||g|| + 1e-6))   # this tensor alone
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        p = p - lr * (m / (sqrt(v) + eps) + weight_decay * p)

    It differs from :class:`torch.optim.AdamW` in three ways: the moments are
    **not bias-corrected** (the first steps are smaller than Adam's: ``m``
    and ``v`` start at zero), each parameter tensor's gradient is clipped to
    norm ``max_grad_norm`` on its own before the moments are updated, and
    ``eps`` is added to ``sqrt(v)`` without correction. Weight decay is
    decoupled (as in AdamW) and scaled by ``lr``.

    The learning-rate schedule is not part of the optimizer here (BERT's
    ``warmup``/``t_total`` arguments): MMEngine's parameter schedulers set
    each group's ``lr`` (BERT's schedules:
    :class:`~mmidc.engine.BertWarmupLR`).
    A global gradient clipping is the optimizer wrapper's
    (``clip_grad=dict(max_norm=1.0)``), applied before this optimizer's step.

    Args:
        params (iterable): Parameters or parameter groups.
        lr (float): Learning rate.
        betas (tuple[float, float]): ``(beta1, beta2)``. Defaults to
            ``(0.9, 0.999)``.
        eps (float): Added to ``sqrt(v)``. Defaults to 1e-6.
        weight_decay (float): Decoupled weight decay. Defaults to 0.01.
        max_grad_norm (float): Per-parameter gradient clipping norm; ``<= 0``
            disables it. Defaults to 1.0.
        foreach (bool, optional): Update all tensors of a group with
            ``torch._foreach_*`` ops (fewer kernel launches) or one tensor at
            a time. Defaults to None: foreach when every tensor is on a GPU,
            the loop otherwise (on a CPU it allocates one parameter-sized
            temporary a tensor, foreach three for all tensors at once). On a
            CPU both give the bits of the formula above. Foreach updates the
            groups of equal hyperparameters together (MMEngine's
            ``paramwise_cfg`` makes one group per parameter: 299 for the
            ViT-B/32 adaptation config).
    """

    def __init__(self,
                 params: Iterable,
                 lr: float,
                 betas: Tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-6,
                 weight_decay: float = 0.01,
                 max_grad_norm: float = 1.0,
                 foreach: Optional[bool] = None):
        if lr < 0.0:
            raise ValueError(f'BertAdam: lr must be >= 0, got {lr}')
        if len(betas) != 2 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f'BertAdam: betas must be two numbers in '
                             f'[0, 1), got {betas}')
        if eps < 0.0:
            raise ValueError(f'BertAdam: eps must be >= 0, got {eps}')
        if weight_decay < 0.0:
            raise ValueError(f'BertAdam: weight_decay must be >= 0, got '
                             f'{weight_decay}')
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps,
                        weight_decay=weight_decay,
                        max_grad_norm=max_grad_norm, foreach=foreach)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure: Optional[Callable] = None):
        """One update of every parameter that has a gradient."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        # foreach groups of equal hyperparameters, updated together
        buckets = {}
        for group in self.param_groups:
            params = [p for p in group['params'] if p.grad is not None]
            if not params:
                continue
            if any(p.grad.is_sparse for p in params):
                raise RuntimeError('BertAdam does not support sparse '
                                   'gradients')
            for p in params:
                state = self.state[p]
                if not state:
                    state['step'] = 0
                    state['exp_avg'] = torch.zeros_like(p)
                    state['exp_avg_sq'] = torch.zeros_like(p)
                state['step'] += 1
            foreach = group['foreach']
            if foreach is None:  # one kernel per op for all tensors on GPUs
                foreach = all(p.is_cuda for p in params)
            if not foreach:
                self._update(group, params)
                continue
            key = tuple(group[k] for k in ('lr', 'betas', 'eps', 'weight_decay',
                                           'max_grad_norm'))
            buckets.setdefault(key, (group, []))[1].extend(params)
        for group, params in buckets.values():
            self._foreach_update(group, params)
        return loss

    def _update(self, group: dict, params: List[torch.Tensor]) -> None:
        """The update, one tensor at a time, with one temporary per tensor.

        The clipped gradient's buffer is reused for ``sqrt(v) + eps`` and
        then for the update (``torch.sqrt(..., out=)``, in-place ops): the
        same operations in the same order as ``m / (v.sqrt() + eps)``, so
        the same bits, without allocating (and, on a CPU, page-faulting in)
        three more parameter-sized tensors per parameter and step.
        """
        beta1, beta2 = group['betas']
        max_norm, eps = group['max_grad_norm'], group['eps']
        for p in params:
            grad = p.grad
            if max_norm > 0:
                norm = torch.linalg.vector_norm(  # >= fp32
                    grad, dtype=torch.promote_types(grad.dtype,
                                                    torch.float32))
                grad = grad * (max_norm / (norm + 1e-6)).clamp(max=1.0)
                buf = grad  # a new tensor: free once the moments have it
            else:
                buf = torch.empty_like(p)
            m, v = self.state[p]['exp_avg'], self.state[p]['exp_avg_sq']
            m.mul_(beta1).add_(grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            update = torch.sqrt(v, out=buf).add_(eps)
            torch.div(m, update, out=update)  # m / (sqrt(v) + eps)
            if group['weight_decay'] > 0.0:
                update.add_(p, alpha=group['weight_decay'])
            p.add_(update, alpha=-group['lr'])

    def _foreach_update(self, group: dict, params: List[torch.Tensor]) -> None:
        """The same update with ``torch._foreach_*`` ops over all tensors."""
        beta1, beta2 = group['betas']
        max_norm = group['max_grad_norm']
        grads = [p.grad for p in params]
        if max_norm > 0:
            # per tensor: min(1, max_norm / (||g|| + 1e-6)), 0-d each
            coefs = torch._foreach_add(torch._foreach_norm(grads), 1e-6)
            torch._foreach_reciprocal_(coefs)
            torch._foreach_mul_(coefs, max_norm)
            torch._foreach_clamp_max_(coefs, 1.0)
            grads = torch._foreach_mul(grads, coefs)
        ms = [self.state[p]['exp_avg'] for p in params]
        vs = [self.state[p]['exp_avg_sq'] for p in params]
        torch._foreach_mul_(ms, beta1)
        torch._foreach_add_(ms, grads, alpha=1 - beta1)
        torch._foreach_mul_(vs, beta2)
        torch._foreach_addcmul_(vs, grads, grads, value=1 - beta2)
        denom = torch._foreach_sqrt(vs)
        torch._foreach_add_(denom, group['eps'])
        update = torch._foreach_div(ms, denom)
        if group['weight_decay'] > 0.0:
            torch._foreach_add_(update, params, alpha=group['weight_decay'])
        torch._foreach_add_(params, update, alpha=-group['lr'])
