"""Train an mmidc model (adaptation or captioning stage) with MMEngine.

    python tools/train.py CONFIG [--work-dir DIR] [--resume [CKPT]] [--amp]
        [--cfg-options key=value ...] [--launcher none|pytorch|slurm|mpi]
"""
import argparse
import os

from mmengine.config import Config, DictAction
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers components, safe checkpoint loading)
from mmidc.utils.config_check import apply_launch_args, check_config


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
        'dir when no path is given')
    parser.add_argument(
        '--amp',
        action='store_true',
        help='mixed precision: bf16 on CPU, fp16 on GPU (fp32 master weights)')
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=DictAction,
        help='override config settings, e.g. train_cfg.max_epochs=3')
    parser.add_argument(
        '--launcher',
        choices=['none', 'pytorch', 'slurm', 'mpi'],
        default='none',
        help='job launcher (tools/dist_train.sh uses pytorch)')
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)
    args = parser.parse_args()
    if 'LOCAL_RANK' not in os.environ:
        os.environ['LOCAL_RANK'] = str(args.local_rank)
    return args


def merge_args(cfg: Config, args) -> Config:
    apply_launch_args(cfg, args.config, args.launcher, args.work_dir)
    if args.amp:
        from mmidc.utils.amp import amp_optim_wrapper
        cfg.optim_wrapper = amp_optim_wrapper(cfg.optim_wrapper)
    if args.resume == 'auto':
        cfg.resume = True
        cfg.load_from = None
    elif args.resume is not None:
        cfg.resume = True
        cfg.load_from = args.resume
    return cfg


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    if args.cfg_options is not None:
        cfg.merge_from_dict(args.cfg_options)
    cfg = merge_args(cfg, args)
    check_config(cfg)
    if 'runner_type' in cfg:
        from mmidc.registry import RUNNERS
        runner = RUNNERS.build(cfg)
    else:
        runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
