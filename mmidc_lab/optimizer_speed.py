"""The configs' optimizer step alone: gradient clipping and BertAdam.

Times MMEngine's global ``clip_grad_norm_`` (foreach off and on) and
:class:`~mmidc.engine.BertAdam`'s step (its per-tensor loop and its foreach
update) on random tensors of a model's parameter shapes, in the parameter
groups the stage's schedule makes (``configs/_base_/schedules``)::

    python -m mmidc_lab.optimizer_speed --threads 2
    python -m mmidc_lab.optimizer_speed --archs vit-b32 --stages captioning
    python -m mmidc_lab.optimizer_speed --device cuda
    # another implementation beside them (BertAdam's arguments), e.g. the
    # tests' reference loop, from a clone's root:
    python -m mmidc_lab.optimizer_speed \\
        --extra-class tests.helpers.reference_bert_adam:ReferenceBertAdam
"""
import argparse
import json
import os
import os.path as osp

import torch

import mmidc  # noqa: F401  (registers the components)
import projects.from_scratch  # noqa: F401  (the tiny captioner's head)
from mmidc_lab.benchmarks import report
from mmidc_lab.benchmarks.optimizer_speed import measure_optimizer
from mmidc_lab.benchmarks.sections import ARCHS, STAGES, build

COLUMNS = ['arch', 'stage', 'device', 'tensors', 'params', 'groups', 'what',
           'step_ms', 'min_ms', 'load']


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--archs', nargs='+', choices=sorted(ARCHS),
                        default=['tiny', 'vit-b32'])
    parser.add_argument('--stages', nargs='+', choices=STAGES, default=['captioning'])
    parser.add_argument('--impls', nargs='+', choices=['loop', 'foreach'],
                        default=['loop', 'foreach'])
    parser.add_argument('--extra-class', nargs='*', default=[],
                        metavar='MODULE:CLASS', help='other optimizer classes')
    parser.add_argument('--steps', type=int, default=5)
    parser.add_argument('--threads', type=int, default=None)
    parser.add_argument('--device', default='cpu', choices=['cpu', 'cuda'])
    parser.add_argument('--out', help='also write the rows as JSON here')
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f'--steps must be >= 1, got {args.steps}')
    if args.device == 'cuda' and not torch.cuda.is_available():
        parser.error('--device cuda: no CUDA device visible')
    if args.threads:
        torch.set_num_threads(args.threads)
    rows = []
    for arch in args.archs:
        for stage in args.stages:
            model = build(arch, stage, 'cpu')  # its shapes and names only
            rows += measure_optimizer(model, stage, arch, args.device, args.steps,
                                      args.impls, args.extra_class)
            del model
            print(report.markdown(rows[-1:], COLUMNS).splitlines()[-1], flush=True)
    print(f'\n{torch.get_num_threads()} threads, torch {torch.__version__}\n')
    print(report.markdown(rows, COLUMNS))
    if args.out:
        os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
        with open(args.out, 'w') as f:
            json.dump(rows, f, indent=2)
    return rows


if __name__ == '__main__':
    main()
