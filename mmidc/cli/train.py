"""Train an mmidc model (adaptation or captioning stage) with MMEngine.

    python tools/train.py CONFIG [--work-dir DIR] [--resume [CKPT]]
        [--resume-allow-changes] [--amp [fp16|bf16]] [--image-cache]
        [--compile [MODE]] [--fused-optim]
        [--cfg-options key=value ...] [--launcher none|pytorch|slurm|mpi]

On SIGTERM (``scancel``, Slurm's preemption) the run writes
``iter_<n>.pth`` at the end of the iteration in progress and exits with
status 143; ``--resume`` goes on at the next batch. A resume names every
setting that differs from the checkpoint's config; one that changes the
schedule is refused unless --resume-allow-changes is given.

A work dir holds one training run at a time: a second run on it is refused,
naming the process that holds it (``<work dir>/.train.lock``; the lock ends
with that process, however it ends, so ``--resume`` of a killed run works).
A caption vocabulary file the model names must hold the tokens of the
training captions.

Speed options (docs/benchmark.md): --image-cache reads pre-resized images
(built on first use), --compile runs the training step through torch.compile,
--fused-optim uses the optimizer's fused kernel.
"""
import argparse

import torch.distributed as dist
from mmengine.config import Config
from mmengine.logging import print_log
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers components, safe checkpoint loading)
from mmidc.cli import parse_run_args, read_config
from mmidc.cli.errors import clear_errors
from mmidc.datasets.annotation_memo import read_annotations_once
from mmidc.runtime.config_check import (apply_launch_args, check_caption_vocab,
                                        check_config)
from mmidc.runtime.work_dir_lock import lock_work_dir


def parse_args():
    parser = argparse.ArgumentParser(description='Train an mmidc model')
    parser.add_argument('config', help='train config file path')
    parser.add_argument('--work-dir', help='folder for logs and checkpoints')
    parser.add_argument(
        '--resume',
        nargs='?',
        type=str,
        const='auto',
        help='resume from CKPT, or from the latest checkpoint in the work '
        'dir when no path is given (a copied work dir: its own checkpoint)')
    parser.add_argument(
        '--resume-allow-changes',
        action='store_true',
        help="resume even when settings that shape the schedule differ from "
        "the checkpoint's (batch size, epochs/iterations, param_scheduler, "
        'training-set size, number of processes); every difference is '
        'logged either way')
    parser.add_argument(
        '--amp',
        nargs='?',
        const='auto',
        choices=['auto', 'fp16', 'bf16'],
        help='mixed precision with fp32 master weights: fp16 with loss '
        'scaling (the default on GPU) or bf16 autocast (the default on CPU)')
    parser.add_argument(
        '--image-cache',
        action='store_true',
        help='read the images from the pre-resized cache '
        '<data_root>/cache_<H>x<W>, building it first if needed')
    parser.add_argument(
        '--compile',
        nargs='?',
        const='default',
        metavar='MODE',
        help='torch.compile the training step (MODE: default, '
        'reduce-overhead, max-autotune); the compile time is logged')
    parser.add_argument(
        '--fused-optim',
        action='store_true',
        help="the optimizer's fused kernel (Adam, AdamW, SGD)")
    return parse_run_args(
        parser, 'override config settings, e.g. train_cfg.max_epochs=3',
        'job launcher (tools/dist_train.sh uses pytorch)')


def merge_args(cfg: Config, args) -> Config:
    apply_launch_args(cfg, args.config, args.launcher, args.work_dir)
    if args.fused_optim:
        from mmidc.runtime.step_options import use_fused_optimizer
        cfg.optim_wrapper = use_fused_optimizer(cfg.optim_wrapper)
    if args.amp:
        from mmidc.runtime.amp import amp_optim_wrapper
        cfg.optim_wrapper = amp_optim_wrapper(cfg.optim_wrapper,
                                              dtype=args.amp)
    if args.compile:
        from mmidc.runtime.step_options import use_compile
        use_compile(cfg, args.compile)
    if args.image_cache:
        from mmidc.runtime.loader_setup import use_image_cache
        use_image_cache(cfg, loaders=('train_dataloader', 'val_dataloader'))
    if args.resume == 'auto':
        # last_checkpoint, or the newest complete checkpoint when it is
        # empty or names a missing file (None: MMEngine starts afresh).
        from mmidc.engine import find_resume_checkpoint
        cfg.load_from = find_resume_checkpoint(cfg.work_dir)
        cfg.resume = cfg.load_from is not None
        if not cfg.resume:
            print_log(f'--resume: {cfg.work_dir} holds no checkpoint to '
                      'resume from (no last_checkpoint, no epoch_*.pth or '
                      'iter_*.pth): the run starts from scratch',
                      logger='current')
    elif args.resume is not None:
        cfg.resume = True
        cfg.load_from = args.resume
    if getattr(args, 'resume_allow_changes', False):
        cfg.resume_allow_changes = True
    return cfg


def main():
    args = parse_args()
    # The work dir in use or not writable, a full disk, a refused resume:
    # one clear line and exit status 1, no traceback.
    with clear_errors('train.py'):
        _train(args)


def start_up(args) -> Runner:
    """Everything before ``runner.train()``: the config read and checked, the
    work dir locked, the runner built with its training and validation
    loaders. The image cache, the vocabulary check and the loaders build a
    split's data set each; its annotations are read once
    (:func:`~mmidc.datasets.annotation_memo.read_annotations_once`)."""
    cfg = read_config(args)
    with read_annotations_once():
        cfg = merge_args(cfg, args)
        check_config(cfg)
        lock_work_dir(cfg.work_dir, args.launcher)  # one run per work dir
        check_caption_vocab(cfg)
        if 'runner_type' in cfg:
            from mmidc.registry import RUNNERS
            runner = RUNNERS.build(cfg)
        else:
            runner = Runner.from_cfg(cfg)
        runner.train_loop, runner.val_loop  # noqa: B018  (built here)
    return runner


def _train(args):
    runner = start_up(args)
    # the global batch logged; a warning when it is not the config's base
    from mmidc.runtime.global_batch import log_global_batch
    log_global_batch(runner.cfg, runner.world_size)
    runner.train()
    # Leave the process group before the interpreter exits (a rank whose
    # communication threads still run at exit can abort, failing the
    # launcher), after a barrier (one that leaves while another still
    # communicates, its last checkpoint or log, aborts it).
    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


if __name__ == '__main__':
    main()
