"""The quickstart pipeline on the synthetic CLEVR-Change-style set.

    python -m mmidc_lab.quickstart [--work-dir work_dirs/quickstart]
        [--num-scenes N] [--caption-config CONFIG]
        [--adapt-options KEY=VALUE ...] [--caption-options KEY=VALUE ...]
        [--no-shifted] [--tiny-clip]

Stages (each skipped when already done, resumed when interrupted): 1-2 the
synthetic data set and its image cache, 3 adaptation, 4 captioning, 5 the
test split (metric table, caption truth, a few captions), 6-7 the captioner
on a shifted evaluation set, then both test splits side by side
(:mod:`mmidc_lab.experiments.quickstart`).

With ``--tiny-clip``, the tiny-CLIP path follows (about 11 more minutes on
2 cores): 8 pretrain the tiny CLIP with open_clip's trainer (kept in
work_dirs/tiny_clip: a second run only re-exports it), 9 caption on it (each
image encoded alone, no adaptation: the tiny-CLIP ablation row best on val),
10-11 its two test splits, and every test split of both paths side by side.
It is off by default because it is below the from-scratch recipe on val
(docs/ablations.md).

Each training stage keeps the checkpoint that is best on the val split by
its config's ``default_hooks.checkpoint.save_best``; stages 4, 5 and 7 use
the captioning stage's. ``--adapt-options`` / ``--caption-options`` override
config settings of stage 3 / stages 4-7 (``--cfg-options`` syntax), e.g.
validate every epoch and keep the captioner that is best by caption truth::

    --caption-options train_cfg.val_interval=1 \\
        default_hooks.checkpoint.save_best=truth/total
"""
import argparse
import sys

from mmidc_lab.experiments import ExperimentError
from mmidc_lab.experiments.quickstart import CAPTION_CFG, run_quickstart

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--work-dir', default='work_dirs/quickstart')
    p.add_argument('--num-scenes', type=int, default=None,
                   help='scenes to generate (default: the config\'s)')
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--caption-config', default=CAPTION_CFG,
                   help='captioning config (stage 4 and the tests)')
    p.add_argument('--adapt-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='override settings of the adaptation config')
    p.add_argument('--caption-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='override settings of the captioning config (its '
                   'training and both tests)')
    p.add_argument('--no-shifted', action='store_true',
                   help='skip stages 6-7 (the shifted evaluation set)')
    p.add_argument('--tiny-clip', action='store_true',
                   help='also run the tiny-CLIP path (stages 8-11: pretrain a '
                   'tiny CLIP with open_clip, caption on it; about 11 more '
                   'minutes on 2 cores), below the from-scratch recipe on val')
    p.add_argument('--show', type=int, default=8,
                   help='test captions to print next to their references')
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        return run_quickstart(
            args.work_dir, args.num_scenes, args.workers, args.caption_config,
            args.adapt_options, args.caption_options,
            shifted=not args.no_shifted, show=args.show,
            tiny_clip=args.tiny_clip)
    except ExperimentError as err:
        sys.exit(str(err))


if __name__ == '__main__':
    main()
