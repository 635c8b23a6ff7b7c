"""CLIP4IDC's ablations in miniature: the tiny recipe on the synthetic set.

    python -m mmidc_lab.ablations --seeds 0 1 2 \\
        --out docs/ablations.md [--rows recipe no-adapt ...] \\
        [--work-dir work_dirs/ablations] [--select CIDEr] [--spec ROWS.py] \\
        [--adapt-options KEY=VALUE ...] [--caption-options KEY=VALUE ...]

Each row (the built-in ones, or those of ``--spec``) is a variant of the
quickstart's two stages with ``--cfg-options`` overrides; per row and seed,
in ``<work-dir>/<row>/seed<S>/``: adaptation (rows with ``adapt``, best on
val by ``rsum``, scored once on the test split), captioning (best on val by
``--select``), that captioner scored once on the test split and once on
the shifted set (``--no-shifted``: not)
(:mod:`mmidc_lab.experiments.clip4idc_ablation`).

A run's ``result.json`` marks it finished: running the command again skips
finished runs and resumes an interrupted one. The markdown table (mean +- sd
over the seeds, then every run) goes to ``--out`` with the machine, the wall
time per row, the commit and the command.
"""
import argparse
import shlex
import sys

from mmidc_lab.experiments import ExperimentError
from mmidc_lab.experiments import clip4idc_ablation as ablation

def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description='CLIP4IDC ablations in miniature on the synthetic set')
    p.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    p.add_argument('--rows', nargs='+', help='row names (default: all)')
    p.add_argument('--spec', help='a .py/.json/.yaml file with `rows = '
                   '[dict(name=..., label=..., adapt=..., ...)]` instead of '
                   'the built-in rows')
    p.add_argument('--out', default='docs/ablations.md',
                   help='markdown file for the tables')
    p.add_argument('--work-dir', default='work_dirs/ablations')
    p.add_argument('--select', default='CIDEr',
                   help='val metric the captioning checkpoint is chosen by, '
                   'e.g. CIDEr or truth/total')
    p.add_argument('--adapt-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='overrides for the adaptation stage of every row')
    p.add_argument('--caption-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='overrides for the captioning stage of every row')
    p.add_argument('--workers', type=int, default=2,
                   help='processes for data generation and caching')
    p.add_argument('--no-shifted', action='store_true',
                   help='do not score the captioners on the shifted set')
    p.add_argument('--dry-run', action='store_true',
                   help='print the runs and write the table of the finished '
                   'ones; train nothing')
    return p.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    rows = ablation.load_rows(args.spec)
    if args.rows:
        unknown = set(args.rows) - {r['name'] for r in rows}
        if unknown:
            sys.exit(f'--rows: unknown {sorted(unknown)}; rows: '
                     f'{[r["name"] for r in rows]}')
        rows = [r for r in rows if r['name'] in args.rows]
    meta = dict(
        title=ablation.load_title(args.spec),
        subject=ablation.load_subject(args.spec),
        commit=ablation.commit_info(args.out), select=args.select,
        adapt_options=[*ablation.COMMON_ADAPT_OPTIONS, *args.adapt_options],
        caption_options=[*ablation.COMMON_CAPTION_OPTIONS,
                         *args.caption_options],
        command=' '.join(['python -m mmidc_lab.ablations']
                         + [shlex.quote(a) for a in argv]))
    try:
        results = ablation.run_ablations(
            rows, args.seeds, args.work_dir, args.out, meta, args.select,
            args.adapt_options, args.caption_options, args.workers,
            args.dry_run, shifted=not args.no_shifted)
    except ExperimentError as err:
        sys.exit(str(err))
    print(f'[ablations] {len(results)} finished runs; table: {args.out}')
    return results


if __name__ == '__main__':
    main()
