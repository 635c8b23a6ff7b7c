"""What one validation pass costs: the model (encoding and decoding) and
each metric, timed separately.

Validating every epoch lets a run keep the checkpoint that is best on val
(``train_cfg.val_interval=1`` with ``default_hooks.checkpoint.save_best``);
this says what that adds per epoch::

    python tools/analysis_tools/validation_cost.py \\
        projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py \\
        work_dirs/quickstart/caption/best_CIDEr_epoch_5.pth [--split val] \\
        [--cfg-options KEY=VALUE ...]
"""
import argparse
import os
import os.path as osp
import tempfile
import time

import torch
from mmengine.config import Config
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers every component)
from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.runtime.data_root import apply_data_root
from mmidc.cli import working_dir_on_path


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Time one validation pass of a config')
    parser.add_argument('config')
    parser.add_argument('checkpoint')
    parser.add_argument('--split', default='val', choices=('val', 'test'),
                        help='the loader and evaluators timed')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config settings')
    return parser.parse_args(argv)


def build_runner(args, work_dir):
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    apply_data_root(cfg, args.config, args.cfg_options)  # explicit values kept
    for key in ('pretrained', 'init_backbone_from'):
        if cfg.model.get(key) is not None:
            cfg.model[key] = None
    cfg.load_from = args.checkpoint
    cfg.resume = False
    cfg.work_dir = work_dir
    if not (cfg.get(f'{args.split}_dataloader')
            and cfg.get(f'{args.split}_evaluator')):
        raise SystemExit(
            f'{args.config}: no {args.split}_dataloader and '
            f'{args.split}_evaluator to time (a pre-training config has '
            'none): give a captioning config')
    if args.split == 'test':
        cfg.val_dataloader = cfg.test_dataloader
        cfg.val_evaluator = cfg.test_evaluator
    for evaluator in (cfg.val_evaluator if isinstance(
            cfg.val_evaluator, (list, tuple)) else [cfg.val_evaluator]):
        if evaluator['type'] == 'IDCMetric':
            evaluator['out_file_prefix'] = None  # time scoring, not writing
    return Runner.from_cfg(cfg)


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    if not osp.isfile(args.checkpoint):
        raise FileNotFoundError(f'checkpoint not found: {args.checkpoint}')
    with tempfile.TemporaryDirectory() as work_dir:
        runner = build_runner(args, work_dir)
        runner.load_or_resume()
        loop = runner.val_loop  # builds the loader and the evaluators
        model = runner.model
        model.eval()
        start = time.perf_counter()
        pairs = 0
        with torch.no_grad():
            for batch in loop.dataloader:
                outputs = model.val_step(batch)
                loop.evaluator.process(data_samples=outputs,
                                       data_batch=batch)
                pairs += len(outputs)
        model_s = time.perf_counter() - start
        metric_s = {}
        for metric in loop.evaluator.metrics:
            start = time.perf_counter()
            metric.evaluate(len(loop.dataloader.dataset))
            metric_s[type(metric).__name__] = time.perf_counter() - start
    total = model_s + sum(metric_s.values())
    load = ' '.join(f'{v:.2f}' for v in os.getloadavg())
    print(f'{args.split} split, {pairs} pairs: model (encode + decode) '
          f'{model_s:.1f} s, ' + ', '.join(
              f'{name} {s:.1f} s' for name, s in metric_s.items())
          + f'; total {total:.1f} s ({torch.get_num_threads()} threads, '
          f'nproc {os.cpu_count()}, load average {load})')
    return dict(pairs=pairs, model_s=model_s, metric_s=metric_s,
                total_s=total)


if __name__ == '__main__':
    main()
