"""The configs' optimizer step alone, on a model's parameter shapes.

The training configs of both CLIP4IDC stages clip all gradients to norm 1
(MMEngine's ``optim_wrapper.clip_grad``: ``clip_grad_norm_``) and then take a
:class:`~mmidc.engine.BertAdam` step over MMEngine's parameter groups (one a
parameter: ``paramwise_cfg``). This times the two apart from the model:
random tensors of the model's parameter shapes, in the groups (lr, weight
decay) the stage's schedule makes for that model, random gradients.

Rows: the clip (``clip_grad_norm_`` with ``foreach`` off and on) and the
optimizer step (BertAdam's per-tensor loop, its ``foreach`` update, and any
other optimizer class given, e.g. a reference implementation), each on its
own tensors, timed in turns.
"""
import copy
import importlib
import statistics
import time
from typing import Callable, Dict, List, Optional, Sequence

import torch
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

from mmidc_lab.configs import config_file
from .measure import load_average, synchronize

__all__ = ['SCHEDULES', 'config_optim_wrapper', 'parameter_groups', 'make_groups',
           'optimizer_step', 'clip_step', 'load_class', 'measure_optimizer']

#: The schedule (``optim_wrapper``) of each stage's configs.
SCHEDULES = dict(adaptation='mmidc::_base_/schedules/adaptation.py',
                 captioning='mmidc::_base_/schedules/captioning.py')


def config_optim_wrapper(model: torch.nn.Module, stage: str, dtype: str = 'fp32'):
    """The optim wrapper of a stage's schedule for ``model`` (BertAdam over
    MMEngine's parameter groups, the global clip), with bf16 autocast
    (:class:`~mmidc.engine.AutocastOptimWrapper`) for ``dtype='bf16'``."""
    if dtype not in ('fp32', 'bf16'):
        raise ValueError(f"dtype must be 'fp32' or 'bf16', got {dtype!r}")
    cfg = copy.deepcopy(Config.fromfile(config_file(SCHEDULES[stage])).optim_wrapper)
    if dtype == 'bf16':
        cfg.update(type='AutocastOptimWrapper', dtype='bfloat16')
    with DefaultScope.overwrite_default_scope('mmidc'):
        return build_optim_wrapper(model, cfg)


def parameter_groups(model: torch.nn.Module, schedule: str) -> tuple:
    """The parameter groups a schedule's ``optim_wrapper`` makes for a model.

    Args:
        model (nn.Module): The model (its trainable parameters' names and
            shapes are used).
        schedule (str): A config name (``mmidc::...``) or file with an
            ``optim_wrapper``.

    Returns:
        tuple: ``(groups, optimizer_cfg, clip_grad)``: each group a dict of
        ``shapes`` (trainable parameters only) and its other keys (``lr``,
        ``weight_decay``...); the ``optimizer`` config and the wrapper's
        ``clip_grad`` (None: no clipping).
    """
    path = config_file(schedule) if '::' in schedule else schedule
    cfg = copy.deepcopy(Config.fromfile(path).optim_wrapper)
    with DefaultScope.overwrite_default_scope('mmidc'):
        wrapper = build_optim_wrapper(model, cfg)
    groups = []
    for group in wrapper.optimizer.param_groups:
        shapes = [tuple(p.shape) for p in group['params'] if p.requires_grad]
        if shapes:
            groups.append(dict({k: v for k, v in group.items() if k != 'params'},
                               shapes=shapes))
    return groups, dict(cfg.optimizer), cfg.get('clip_grad')


def make_groups(groups: List[Dict], device: str = 'cpu',
                dtype: torch.dtype = torch.float32, seed: int = 0) -> List[Dict]:
    """Parameter groups of random tensors with random gradients, in the
    shapes and settings of :func:`parameter_groups`."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for group in groups:
        params = []
        for shape in group['shapes']:
            p = torch.nn.Parameter(
                (0.02 * torch.randn(shape, generator=gen)).to(device, dtype))
            p.grad = (0.01 * torch.randn(shape, generator=gen)).to(device, dtype)
            params.append(p)
        settings = {k: v for k, v in group.items()
                    if k in ('lr', 'weight_decay', 'betas', 'eps', 'max_grad_norm')}
        out.append(dict(params=params, **settings))
    return out


def _timed(fns: Dict[str, Callable[[], object]], steps: int,
           device: str) -> Dict[str, Dict]:
    """Median and minimum milliseconds of each function, called in turns
    (the order reversed every other round), so that a load that changes
    during the run (a shared machine) weighs on each alike."""
    for fn in fns.values():  # the first step allocates the state
        fn()
    synchronize(device)
    wall = {name: [] for name in fns}
    for step in range(steps):
        order = list(fns.items())
        for name, fn in (order if step % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            fn()
            synchronize(device)
            wall[name].append(time.perf_counter() - start)
    load = load_average()
    return {name: dict(step_ms=round(1e3 * statistics.median(times), 2),
                       min_ms=round(1e3 * min(times), 2), steps=steps, load=load)
            for name, times in wall.items()}


def optimizer_step(optimizer_cls, groups: List[Dict], optimizer_cfg: Dict,
                   device: str = 'cpu', **kwargs) -> Callable[[], object]:
    """``optimizer_cls(groups, **optimizer_cfg, **kwargs).step`` on fresh
    tensors (the gradients stay; each step updates the state)."""
    cfg = {k: v for k, v in optimizer_cfg.items() if k != 'type'}
    cfg.update(kwargs)
    return optimizer_cls(make_groups(groups, device), **cfg).step


def clip_step(groups: List[Dict], clip_grad: Dict, foreach: bool,
              device: str = 'cpu') -> Callable[[], object]:
    """``clip_grad_norm_`` over all the gradients, as MMEngine's wrapper
    calls it, with ``foreach`` off or on, and the norm read back (the
    wrapper logs it with ``float()``)."""
    params = [p for g in make_groups(groups, device) for p in g['params']]
    return lambda: float(torch.nn.utils.clip_grad_norm_(
        params, foreach=foreach, **clip_grad))


def load_class(name: str):
    """``'package.module:Class'`` -> the class."""
    module, sep, attr = name.partition(':')
    if not sep or not attr:
        raise ValueError(f'{name!r}: give an optimizer class as module:Class')
    return getattr(importlib.import_module(module), attr)


def measure_optimizer(model: torch.nn.Module, stage: str, arch: str,
                      device: str = 'cpu', steps: int = 5,
                      impls: Sequence[str] = ('loop', 'foreach'),
                      extra_classes: Optional[Sequence[str]] = None) -> List[Dict]:
    """Rows for one model: the clip (foreach off/on) and the optimizer
    implementations.

    Args:
        model (nn.Module): The model whose trainable parameters' shapes and
            names (for the groups) are used; it is not run.
        stage (str): ``'adaptation'`` or ``'captioning'`` (its schedule).
        arch (str): The row's label.
        device (str): Where the tensors live.
        steps (int): Timed steps (after one untimed).
        impls (sequence of str): BertAdam's ``'loop'`` (``foreach=False``)
            and/or ``'foreach'``.
        extra_classes (sequence of str, optional): Other optimizer classes
            (``module:Class``, BertAdam's arguments), one row each.

    Each row's function has its own tensors (memory: four times the
    parameters' for each optimizer row, twice for each clip row) and all
    are timed in turns, ``steps`` times each.

    Returns:
        list[dict]: One row per measurement.
    """
    from mmidc.engine import BertAdam
    groups, optimizer_cfg, clip_grad = parameter_groups(model, SCHEDULES[stage])
    base = dict(arch=arch, stage=stage, device=device,
                tensors=sum(len(g['shapes']) for g in groups),
                params=sum(torch.Size(s).numel() for g in groups for s in g['shapes']),
                groups=len(groups))
    fns = {}
    if clip_grad:
        for foreach in (False, True):
            fns[f'clip_grad_norm_ foreach={foreach}'] = clip_step(
                groups, clip_grad, foreach, device)
    for impl in impls:
        if impl not in ('loop', 'foreach'):
            raise ValueError(f"impl must be 'loop' or 'foreach', got {impl!r}")
        fns[f'{optimizer_cfg["type"]} {impl}'] = optimizer_step(
            BertAdam, groups, optimizer_cfg, device, foreach=impl == 'foreach')
    for name in extra_classes or []:
        fns[f'{name} loop'] = optimizer_step(load_class(name), groups, optimizer_cfg,
                                             device, foreach=False)
    rows = [dict(base, what=name, **timing)
            for name, timing in _timed(fns, steps, device).items()]
    return rows
