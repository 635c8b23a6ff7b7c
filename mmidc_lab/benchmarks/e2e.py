"""End-to-end training throughput: the training command on a real data set.

A config is turned into a benchmark config (no pretrained weights to read,
no validation, no checkpoints, the data root swapped, the training set
repeated so that one epoch has enough iterations), ``python -m
mmidc.cli.train`` runs it in a subprocess (in the working directory) with the
options to measure (``--amp``, ``--image-cache``...),
and the iteration and data times it logged give pairs/s and the share of an
iteration spent waiting for data. The same config's training step on
synthetic tensors (no loader) is the reference for the per-iteration overhead.
"""
import copy
import json
import os
import os.path as osp
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence

import torch
from mmengine.config import Config

from mmidc_lab.configs import config_label
from .measure import fraction, load_average, synchronize, time_call


def _rewrite(node, data_root: str, work_dir: str) -> None:
    """Point every data root (and vocabulary file) at ``data_root``, drop
    weight files and caches."""
    if isinstance(node, dict):
        for key in list(node):
            value = node[key]
            if key == 'data_root':
                node[key] = data_root
            elif key in ('pretrained', 'init_backbone_from'):
                node[key] = None
            elif key == 'vocab' and isinstance(value, str) and value.endswith('.json'):
                node[key] = osp.join(data_root, osp.basename(value))
            else:
                _rewrite(value, data_root, work_dir)
        if str(node.get('type', '')).endswith('LoadImagePair'):
            node.pop('cache_dir', None)  # PNGs; --image-cache switches back
            node.pop('cache_size', None)
    elif isinstance(node, list):
        for item in node:
            _rewrite(item, data_root, work_dir)


def benchmark_config(config: str, data_root: str, work_dir: str,
                     batch_size: Optional[int] = None, min_iters: int = 60,
                     log_interval: int = 10) -> Dict:
    """Write the benchmark variant of ``config``; returns its path and batch.

    The training set is wrapped in a ``RepeatDataset`` so that one epoch has
    at least ``min_iters`` iterations (epoch starts, when the loader's
    workers refill, are then as rare as on a real data set).
    """
    cfg = Config.fromfile(config)
    from mmidc.utils.config_placeholders import fill_placeholders
    fill_placeholders(cfg)  # '{data_root}/...', '{vocab_file}'
    cfg_dict = cfg.to_dict()
    _rewrite(cfg_dict, osp.abspath(data_root), osp.abspath(work_dir))
    cfg = Config(cfg_dict)
    loader = cfg.train_dataloader
    if batch_size:
        loader.batch_size = batch_size
    import mmidc  # noqa: F401
    from mmengine.registry import init_default_scope
    from mmidc.registry import DATASETS
    init_default_scope('mmidc')
    dataset = copy.deepcopy(loader.dataset.to_dict())
    dataset.update(pipeline=[], lazy_init=False)
    pairs = len(DATASETS.build(dataset))
    times = max(1, -(-min_iters * loader.batch_size // pairs))
    loader.dataset = dict(type='RepeatDataset', times=times,
                          dataset=loader.dataset)
    for key in ('val', 'test'):
        cfg[f'{key}_dataloader'] = None
        cfg[f'{key}_cfg'] = None
        cfg[f'{key}_evaluator'] = None
    cfg.train_cfg = dict(by_epoch=True, max_epochs=1, val_interval=10**6)
    cfg.default_hooks.checkpoint = dict(type='CheckpointHook', interval=10**6,
                                        save_last=False, save_best=None)
    cfg.default_hooks.logger = dict(type='LoggerHook', interval=log_interval)
    os.makedirs(work_dir, exist_ok=True)
    path = osp.join(work_dir, 'benchmark_config.py')
    cfg.dump(path)
    return dict(config=path, batch=loader.batch_size, pairs=pairs, repeat=times,
                iters=times * pairs // loader.batch_size)


def run_train(config: str, work_dir: str, options: Sequence[str] = (),
              env: Optional[dict] = None, timeout: float = 1800) -> Dict:
    """``python -m mmidc.cli.train CONFIG --work-dir W OPTIONS`` in a
    subprocess.

    Each output line is stamped with the seconds since the start (written to
    ``W/train_output.log``), which gives the run's phases: ``startup_s``
    (interpreter, imports and the runner, up to MMEngine's "Checkpoints will
    be saved" line), ``to_first_log_s`` (from there to the first logged
    training window: the loader's workers and the first iterations) and
    ``shutdown_s`` (from the last training line to the exit).
    """
    cmd = [sys.executable, '-m', 'mmidc.cli.train', config, '--work-dir',
           work_dir, *options]
    full_env = dict(os.environ, **(env or {}))
    start = time.perf_counter()
    stamped = []
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        for line in proc.stdout:
            stamped.append((time.perf_counter() - start, line.rstrip('\n')))
            if time.perf_counter() - start > timeout:
                raise subprocess.TimeoutExpired(cmd, timeout)
        proc.wait(timeout=max(1.0, timeout - (time.perf_counter() - start)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wall = time.perf_counter() - start
    os.makedirs(work_dir, exist_ok=True)
    with open(osp.join(work_dir, 'train_output.log'), 'w') as f:
        f.writelines(f'{t:9.2f} {line}\n' for t, line in stamped)
    output = '\n'.join(line for _, line in stamped)
    if proc.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed:\n{output[-4000:]}')
    return dict(wall_s=round(wall, 1), output=output, **phases(stamped, wall))


def phases(stamped: List[tuple], wall: float) -> Dict:
    """The phases of a run from its stamped output lines (see
    :func:`run_train`); a phase whose marker line is missing is left out."""
    built = next((t for t, line in stamped if 'Checkpoints will be saved' in line), None)
    iters = [t for t, line in stamped if 'Epoch(train)' in line]
    out = {}
    if built is not None:
        out['startup_s'] = round(built, 1)
        if iters:
            out['to_first_log_s'] = round(iters[0] - built, 1)
    if iters:
        out['shutdown_s'] = round(wall - iters[-1], 1)
    return out


def logged_windows(work_dir: str) -> List[dict]:
    """The training lines of the run's ``scalars.json`` (one per logged
    window of ``interval`` iterations: mean ``time`` and ``data_time``)."""
    files = sorted(p for p in _find(work_dir, 'scalars.json'))
    if not files:
        raise FileNotFoundError(f'no scalars.json under {work_dir}')
    with open(files[-1]) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [line for line in lines if 'time' in line and 'data_time' in line]


def _find(folder: str, name: str):
    for root, _, files in os.walk(folder):
        if name in files:
            yield osp.join(root, name)


def steady_state(windows: List[dict], batch: int, skip: int = 2) -> Dict:
    """Pairs/s and the data-wait share over the windows after ``skip``
    (warm-up, compilation); the first window's time per iteration apart."""
    if len(windows) <= skip:
        raise ValueError(f'{len(windows)} logged windows: too few to skip {skip}')
    steps = [w['step'] for w in windows]
    sizes = [b - a for a, b in zip([0] + steps, steps)]
    used = list(zip(windows, sizes))[skip:]
    iters = sum(n for _, n in used)
    total = sum(w['time'] * n for w, n in used)
    data = sum(w['data_time'] * n for w, n in used)
    loop = sum(w['time'] * n for w, n in zip(windows, sizes))
    return dict(iters=iters, iter_s=round(total / iters, 4),
                data_s=round(data / iters, 4), data_share=fraction(data, total),
                pairs_per_s=round(batch * iters / total, 1),
                first_window_iter_s=round(windows[0]['time'], 3),
                loop_s=round(loop, 1))


def train_throughput(config: str, data_root: str, work_dir: str,
                     options: Sequence[str] = (), batch_size: Optional[int] = None,
                     min_iters: int = 60, log_interval: int = 10,
                     env: Optional[dict] = None) -> Dict:
    """Run the training command on the benchmark variant of ``config``."""
    bench = benchmark_config(config, data_root, work_dir, batch_size, min_iters,
                             log_interval)
    run = run_train(bench['config'], work_dir, options, env)
    row = dict(config=config_label(config), options=' '.join(options),
               batch=bench['batch'], train_pairs=bench['pairs'],
               repeat=bench['repeat'], load=load_average(), wall_s=run['wall_s'],
               **{k: run[k] for k in ('startup_s', 'to_first_log_s', 'shutdown_s')
                  if k in run})
    row.update(steady_state(logged_windows(work_dir), bench['batch']))
    # start-up (imports, building the runner, the data set and the loader's
    # workers) and shutdown: the run's time outside the logged iterations
    row['outside_loop_s'] = round(run['wall_s'] - row['loop_s'], 1)
    for line in run['output'].splitlines():
        if 'torch.compile: first iteration' in line:
            row['compile_log'] = line.split('torch.compile: ', 1)[1]
    return row


def config_step_time(config: str, batch_size: int, device: str, data_root: str,
                     work_dir: str, steps: int = 10, amp: Optional[str] = None,
                     fused: bool = False,
                     compile_mode: Optional[str] = None) -> Dict:
    """The training step of ``config``'s model and optimizer on synthetic
    tensors already on ``device`` (no loader): seconds per step and pairs/s.
    ``data_root`` is read for a restricted caption vocabulary.

    ``amp``, ``fused`` and ``compile_mode`` apply the training command's
    ``--amp``, ``--fused-optim`` and ``--compile``; with ``compile_mode`` the
    first (compiling) call is timed apart as ``compile_s``.
    """
    from mmengine.optim import build_optim_wrapper
    from mmengine.registry import init_default_scope

    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    from mmidc.runtime.amp import amp_optim_wrapper
    from mmidc.runtime.step_options import use_fused_optimizer
    from .workloads import synthetic_batch
    init_default_scope('mmidc')
    cfg = Config.fromfile(config)
    from mmidc.utils.config_placeholders import fill_placeholders
    fill_placeholders(cfg)  # '{data_root}/...', '{vocab_file}'
    cfg_dict = cfg.to_dict()
    _rewrite(cfg_dict, osp.abspath(data_root), osp.abspath(work_dir))
    model = MODELS.build(cfg_dict['model']).to(device).train()
    optim_cfg = cfg_dict['optim_wrapper']
    if fused:
        optim_cfg = use_fused_optimizer(optim_cfg)
    if amp:
        optim_cfg = amp_optim_wrapper(optim_cfg, device, dtype=amp)
    wrapper = build_optim_wrapper(model, optim_cfg)
    batch = synthetic_batch(model, batch_size)
    batch['inputs'] = torch.stack(batch['inputs']).to(device)
    step = model.train_step
    row = dict(config=config_label(config), batch=batch_size,
               amp=amp or 'fp32', fused=fused, compile=compile_mode or '')
    if compile_mode:
        step = torch.compile(step, **({} if compile_mode == 'default'
                                      else dict(mode=compile_mode)))
        start = time.perf_counter()
        step(batch, wrapper)
        synchronize(device)
        row['first_call_s'] = round(time.perf_counter() - start, 2)
    timing = time_call(lambda: step(batch, wrapper), steps=steps, warmup=2,
                       device=device)
    row.update(step_s=round(timing['wall_s'], 4),
               pairs_per_s=round(batch_size / timing['wall_s'], 1),
               load=timing['load'])
    if compile_mode:
        row['compile_s'] = round(row['first_call_s'] - row['step_s'], 1)
    del model, wrapper
    if device.startswith('cuda'):
        torch.cuda.empty_cache()
    return row
