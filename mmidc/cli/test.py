"""Evaluate a trained mmidc checkpoint on a config's test split.

    python tools/test.py CONFIG CHECKPOINT [--work-dir DIR] [--out FILE]
        [--partial-load] [--cfg-options key=value ...]
        [--launcher none|pytorch|slurm|mpi]

A checkpoint whose weights do not fit the config's model (another model
family, another size) is an error naming the missing and unexpected key
prefixes; --partial-load loads the keys that fit.
"""
import argparse
import json
import os.path as osp

from mmengine.runner import Runner

import mmidc  # noqa: F401
from mmidc.apis.model_loading import (check_checkpoint_fits,
                                      prepare_model_cfg_for_checkpoint)
from mmidc.cli import parse_run_args, read_config
from mmidc.cli.errors import clear_errors
from mmidc.runtime.config_check import apply_launch_args, check_config
from mmidc.utils.checkpoint_io import folder_given_as_checkpoint


def parse_args():
    parser = argparse.ArgumentParser(description='Test an mmidc model')
    parser.add_argument('config', help='config file path')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument('--work-dir', help='folder for the test logs')
    parser.add_argument(
        '--out',
        help='also dump the raw per-sample predictions (pickle, via '
        "MMEngine's DumpResults) to this file")
    parser.add_argument(
        '--partial-load',
        action='store_true',
        help='load a checkpoint whose weights do not all fit the model '
        '(missing or unexpected keys are logged); without it they are an '
        'error')
    return parse_run_args(parser, 'override config settings')


def main():
    args = parse_args()
    # A full or read-only disk: one clear line and exit status 1.
    with clear_errors('test.py'):
        return _test(args)


def _test(args):
    if osp.isdir(args.checkpoint):
        raise IsADirectoryError(folder_given_as_checkpoint(args.checkpoint))
    if not osp.isfile(args.checkpoint):
        raise FileNotFoundError(f'checkpoint not found: {args.checkpoint}')
    cfg = read_config(args)
    apply_launch_args(cfg, args.config, args.launcher, args.work_dir)
    cfg.load_from = args.checkpoint
    # The checkpoint holds every weight and the caption vocabulary: no
    # CLIP / adaptation-stage file, no training annotations needed here.
    prepare_model_cfg_for_checkpoint(cfg.model, args.checkpoint)
    cfg.resume = False
    if args.out is not None:
        evaluators = cfg.test_evaluator
        cfg.test_evaluator = [
            *(evaluators if isinstance(evaluators, list) else [evaluators]),
            dict(type='DumpResults', out_file_path=args.out)]
    check_config(cfg)
    runner = Runner.from_cfg(cfg)
    check_checkpoint_fits(runner.model, args.checkpoint,
                          partial=args.partial_load)
    metrics = runner.test()
    scores_file = osp.join(cfg.work_dir, 'test_scores.json')
    with open(scores_file, 'w') as f:
        json.dump({k: float(v) for k, v in metrics.items()}, f, indent=1)
    print(f'test scores written to {scores_file}')
    return metrics


if __name__ == '__main__':
    main()
