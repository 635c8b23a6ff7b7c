"""The global batch of a run, against the batch its config was written for.

``train_dataloader.batch_size`` is per process: on ``W`` GPUs a config
trains with ``W`` times its batch. The batch the recipe (and its learning
rate) was written for is ``auto_scale_lr.base_batch_size``, or, in a config
without ``auto_scale_lr``, its own ``batch_size`` in one process.
"""
import logging
from typing import Optional

from mmengine.config import Config
from mmengine.logging import print_log

__all__ = ['global_batch', 'log_global_batch']


def global_batch(cfg: Config, world_size: int) -> Optional[dict]:
    """The run's batch sizes.

    Args:
        cfg (Config): The run's config.
        world_size (int): Training processes (GPUs).

    Returns:
        dict | None: ``per_process``, ``world_size``, ``accumulation``
        (``optim_wrapper.accumulative_counts``), ``global_batch`` (pairs
        per optimizer step: the three multiplied), ``base`` (the config's base
        batch), ``base_key`` (where ``base`` comes from) and ``scaled``
        (``auto_scale_lr.enable``); None for a config without a training
        loader.
    """
    loader = cfg.get('train_dataloader')
    if not loader or loader.get('batch_size') is None:
        return None
    per_process = int(loader['batch_size'])
    accumulation = int((cfg.get('optim_wrapper') or {}).get(
        'accumulative_counts', 1) or 1)
    auto_scale = cfg.get('auto_scale_lr') or {}
    if auto_scale.get('base_batch_size') is not None:
        base = int(auto_scale['base_batch_size'])
        base_key = 'auto_scale_lr.base_batch_size'
    else:
        base = per_process
        base_key = 'train_dataloader.batch_size in one process'
    return dict(per_process=per_process, world_size=int(world_size),
                accumulation=accumulation,
                global_batch=per_process * int(world_size) * accumulation,
                base=base, base_key=base_key,
                scaled=bool(auto_scale.get('enable', False)))


def _keep_base_hint(info: dict) -> str:
    """How to train with the base batch on this many processes."""
    per_step = info['world_size'] * info['accumulation']
    if info['base'] % per_step == 0:
        return (f'--cfg-options train_dataloader.batch_size='
                f'{info["base"] // per_step} ({info["base"]} / '
                f'{per_step} processes)')
    return (f'a per-process batch that divides {info["base"]} on a number of '
            'GPUs that divides it')


def log_global_batch(cfg: Config, world_size: int) -> Optional[dict]:
    """Log the global batch of a run, and warn when it differs from the
    config's base batch while the learning rate is not scaled
    (``auto_scale_lr.enable``): the run then does not train with the
    config's recipe.

    Args:
        cfg (Config): The run's config.
        world_size (int): Training processes (GPUs).

    Returns:
        dict | None: What :func:`global_batch` returns.
    """
    info = global_batch(cfg, world_size)
    if info is None:
        return None
    processes = 'process' if info['world_size'] == 1 else 'processes'
    accumulation = (f' x {info["accumulation"]} accumulated steps'
                    if info['accumulation'] > 1 else '')
    print_log(
        f'Global batch: {info["world_size"]} {processes} x '
        f'{info["per_process"]} (train_dataloader.batch_size){accumulation} '
        f'= {info["global_batch"]}; the config\'s base batch: {info["base"]} '
        f'({info["base_key"]})', logger='current')
    if info['global_batch'] == info['base']:
        return info
    ratio = info['global_batch'] / info['base']
    if info['scaled']:
        print_log(
            f'auto_scale_lr is enabled: the learning rate is scaled by the '
            f'global batch over the base batch (MMEngine, {info["world_size"]}'
            f' x {info["per_process"]} / {info["base"]}; gradient '
            'accumulation not counted).', logger='current')
        return info
    print_log(
        f'The global batch {info["global_batch"]} is not the config\'s base batch '
        f'{info["base"]} ({info["base_key"]}) and the learning rate is not '
        f'scaled: the run takes {ratio:g} times the recipe\'s pairs per '
        f'step at the recipe\'s learning rate. Keep the base batch with '
        f'{_keep_base_hint(info)}, or scale the learning rate by {ratio:g} '
        f'with --cfg-options auto_scale_lr.enable=True (docs/distributed.md).',
        logger='current', level=logging.WARNING)
    return info
