"""Opt-in settings that make a training step faster (tools/train.py flags).

None changes what the model computes; each may change the last bits of the
floating-point results (a fused optimizer rounds differently, a compiled
graph reorders and fuses operations), so runs with and without them are not
bit-identical. Measured effects: docs/benchmark.md.
"""
from typing import Optional

#: Optimizers with a fused (one-kernel) implementation in PyTorch >= 2.4.
FUSED_OPTIMIZERS = ('Adam', 'AdamW', 'SGD', 'Adagrad')


def use_fused_optimizer(optim_wrapper: dict) -> dict:
    """Ask for PyTorch's fused kernel of the wrapper's optimizer.

    One kernel updates every parameter (CUDA and CPU), instead of the
    multi-tensor ``foreach`` loop (CUDA's default) or the per-parameter loop
    (CPU's). With MMEngine's ``AmpOptimWrapper`` a fused optimizer also
    takes the loss scaler's infinite-gradient check inside its kernel, so
    the step no longer waits for the GPU to answer it.

    Raises:
        ValueError: the optimizer has no fused implementation.
    """
    cfg = dict(optim_wrapper)
    optimizer = dict(cfg['optimizer'])
    name = str(optimizer.get('type', '')).split('.')[-1]
    if name not in FUSED_OPTIMIZERS:
        raise ValueError(f'--fused-optim: optimizer {name!r} has no fused '
                         f'implementation (one of {", ".join(FUSED_OPTIMIZERS)})')
    optimizer.update(fused=True, foreach=None)
    cfg['optimizer'] = optimizer
    return cfg


def use_compile(cfg, mode: Optional[str] = None) -> None:
    """``torch.compile`` the training step through MMEngine's ``compile``
    key, and log how long the compilation took (:class:`CompileTimerHook`).

    Args:
        cfg (Config): The config, changed in place.
        mode (str, optional): ``torch.compile`` mode (``'default'``,
            ``'reduce-overhead'``, ``'max-autotune'``...).
    """
    compile_cfg = cfg.get('compile')
    compile_cfg = dict(compile_cfg) if isinstance(compile_cfg, dict) else {}
    if mode is not None and mode != 'default':
        compile_cfg['mode'] = mode
    cfg.compile = compile_cfg or True
    hooks = list(cfg.get('custom_hooks') or [])
    if not any(h.get('type') == 'CompileTimerHook' for h in hooks):
        hooks.append(dict(type='CompileTimerHook'))
    cfg.custom_hooks = hooks
