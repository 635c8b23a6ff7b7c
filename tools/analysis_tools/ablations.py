"""CLIP4IDC's ablations in miniature: the tiny recipe on the synthetic set.

    python tools/analysis_tools/ablations.py --seeds 0 1 2 \\
        --out docs/ablations.md [--rows recipe no-adapt ...] \\
        [--work-dir work_dirs/ablations] [--select CIDEr] [--spec ROWS.py] \\
        [--adapt-options KEY=VALUE ...] [--caption-options KEY=VALUE ...]

Each row of :data:`ROWS` (or of ``--spec``) is a variant of the quickstart's
two stages: the adaptation config and the captioning config with
``--cfg-options`` overrides, the same schedules and data for every row. Per
row and seed (``randomness.seed``), in ``<work-dir>/<row>/seed<S>/``:

1. adaptation (rows with ``adapt``), validated every epoch, the checkpoint
   best on val by ``rsum`` kept, then scored once on the test split
   (retrieval R@1 both ways);
2. captioning, initialised from that checkpoint (rows with ``adapt``) or from
   random weights, validated every epoch, the checkpoint best on val by
   ``--select`` (CIDEr, or a caption-truth key such as ``truth/total``) kept;
3. that checkpoint scored once on the test split: CIDEr-D total and per
   change type, caption truth.

A run's ``result.json`` marks it finished: running the command again skips
finished runs and resumes an interrupted one (stages are resumed like the
quickstart's). Rows run one after the other. The markdown table (mean +- sd
over the seeds, then every run) goes to ``--out`` with the machine, the wall
time per row, the commit and the command.
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import os.path as osp
import platform
import shlex
import subprocess
import sys
import time

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
#: The title of the built-in rows' page; a spec file sets its own.
DEFAULT_TITLE = 'CLIP4IDC ablations in miniature'

# Validate every epoch in both stages, so that the checkpoint is chosen on
# val (the tiny configs do so too; named here so that a run's plan says it).
COMMON_ADAPT_OPTIONS = ('train_cfg.val_interval=1', )
COMMON_CAPTION_OPTIONS = ('train_cfg.val_interval=1', )
# The tiny encoder has 4 blocks; the recipe's split is 3 intra + 1 inter.
# Without inter blocks the recipe's difference segment is added to the
# encoder's output instead of the inter blocks' input.
NO_INTER = ('model.backbone.num_inter_layers=0', )
# Each image encoded alone, nothing computed across the two before the
# caption head (the paper's CLIP-FT baseline): no inter blocks and no
# difference segment.
ALONE = ('model.backbone.num_inter_layers=0',
         'model.backbone.extra_segments=[]')

#: The rows: ``name`` (work folder, ``--rows``), ``label`` (table), ``adapt``
#: (run the adaptation stage and initialise the captioner from it; without
#: it the captioner starts from random weights), ``adapt_options`` /
#: ``caption_options`` (``--cfg-options`` of each stage) and optionally
#: ``adapt_config`` / ``caption_config`` (default: the quickstart's).
ROWS = [
    dict(name='recipe', adapt=True,
         label='(a) adaptation, then captioning (3 intra / 1 inter; the '
         'recipe)'),
    dict(name='no-adapt', adapt=False,
         label='(b) captioning without adaptation (3/1)'),
    dict(name='clip-ft', adapt=False, caption_options=ALONE,
         label='(c) CLIP-FT: each image encoded alone (4/0, no difference '
         'segment), no adaptation'),
    dict(name='split-2-2', adapt=True,
         adapt_options=('model.backbone.num_inter_layers=2', ),
         caption_options=('model.backbone.num_inter_layers=2', ),
         label='(d) 2 intra / 2 inter, with adaptation'),
    dict(name='split-4-0', adapt=True, adapt_options=NO_INTER,
         caption_options=NO_INTER,
         label='(d) 4 intra / 0 inter ("all intra"), with adaptation'),
]
ROW_KEYS = {'name', 'label', 'adapt', 'adapt_options', 'caption_options',
            'adapt_config', 'caption_config'}

#: Columns of the tables: (result key, header).
COLUMNS = (('val/CIDEr', 'val CIDEr-D'), ('val/truth/total', 'val true %'),
           ('CIDEr', 'CIDEr-D'), ('color/CIDEr', 'color'),
           ('material/CIDEr', 'material'), ('add/CIDEr', 'add'),
           ('drop/CIDEr', 'drop'), ('move/CIDEr', 'move'),
           ('distractor/CIDEr', 'distractor'), ('truth/total', 'true %'),
           ('truth/color', 'true % color'),
           ('truth/material', 'true % material'),
           ('adapt/p2t/R@1', 'R@1 p2t'), ('adapt/t2p/R@1', 'R@1 t2p'))


def load_quickstart():
    """tools/quickstart.py as a module (its stages are reused here)."""
    path = osp.join(ROOT, 'tools', 'quickstart.py')
    spec = importlib.util.spec_from_file_location('quickstart', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    p.add_argument('--dry-run', action='store_true',
                   help='print the runs and write the table of the finished '
                   'ones; train nothing')
    return p.parse_args(argv)


def load_rows(spec=None):
    """The row table: :data:`ROWS`, or the ``rows`` of a spec file."""
    rows = ROWS
    if spec is not None:
        from mmengine.config import Config
        rows = Config.fromfile(spec).get('rows')
        if not isinstance(rows, (list, tuple)) or not rows:
            raise ValueError(f'{spec}: needs a non-empty list `rows`')
        rows = [dict(r) for r in rows]
    names = set()
    for i, row in enumerate(rows):
        source = spec or 'ROWS'
        unknown = set(row) - ROW_KEYS
        if unknown:
            raise ValueError(f'{source}: row {i} has unknown keys '
                             f'{sorted(unknown)} (known: {sorted(ROW_KEYS)})')
        for key in ('name', 'label', 'adapt'):
            if key not in row:
                raise ValueError(f'{source}: row {i} has no {key!r}')
        if row['name'] in names:
            raise ValueError(f'{source}: two rows named {row["name"]!r}')
        names.add(row['name'])
    return rows


def load_title(spec=None):
    """The page title: :data:`DEFAULT_TITLE` for the built-in rows, a spec
    file's ``title``, else the default and the spec's name (pages of
    different specs get different titles)."""
    if spec is None:
        return DEFAULT_TITLE
    from mmengine.config import Config
    name = osp.splitext(osp.basename(spec))[0]
    return Config.fromfile(spec).get('title') or f'{DEFAULT_TITLE}: {name}'


def run_options(row, seed, args, quickstart):
    """The configs and ``KEY=VALUE`` options of both stages of a run."""
    seed_option = f'randomness.seed={seed}'
    adapt = dict(
        config=row.get('adapt_config', quickstart.ADAPT_CFG),
        options=[*COMMON_ADAPT_OPTIONS, *row.get('adapt_options', ()),
                 *args.adapt_options, seed_option])
    # without adaptation the captioner starts from random weights (the
    # recipe's config names the adaptation run's checkpoint)
    init = () if row['adapt'] else ('model.init_backbone_from=None', )
    caption = dict(
        config=row.get('caption_config', quickstart.CAPTION_CFG),
        options=[*COMMON_CAPTION_OPTIONS, *init,
                 *row.get('caption_options', ()), *args.caption_options,
                 seed_option,
                 f'default_hooks.checkpoint.save_best={args.select}'])
    return dict(adapt=adapt if row['adapt'] else None, caption=caption)


def train_and_test(row, seed, args, quickstart, run_dir):
    """One run of one row; returns its result (also written to
    ``run_dir/result.json``)."""
    plan = run_options(row, seed, args, quickstart)
    log = osp.join(run_dir, 'run.log')
    run_commit = commit_info(args.out)  # the code this run trains with
    start, load_start = time.time(), os.getloadavg()
    scores = {}
    init = []
    if plan['adapt'] is not None:
        adapt_dir = osp.join(run_dir, 'adapt')
        quickstart.train_stage(f'{row["name"]} seed {seed}: adaptation',
                               plan['adapt']['config'], adapt_dir,
                               options=plan['adapt']['options'], log=log)
        adapted = quickstart.best_checkpoint(adapt_dir, quickstart.save_best_key(
            plan['adapt']['config'], plan['adapt']['options']))
        adapt_scores, _, _ = quickstart.test_stage(
            f'{row["name"]} seed {seed}: adaptation, test split',
            plan['adapt']['config'], plan['adapt']['options'], adapted,
            osp.join(run_dir, 'adapt_test'), truth=False, log=log)
        scores.update({f'adapt/{k}': v for k, v in adapt_scores.items()})
        init = ['--cfg-options', f'model.init_backbone_from={adapted}']
    caption_dir = osp.join(run_dir, 'caption')
    quickstart.train_stage(f'{row["name"]} seed {seed}: captioning',
                           plan['caption']['config'], caption_dir,
                           extra=init, options=plan['caption']['options'],
                           log=log)
    captioner = quickstart.best_checkpoint(caption_dir, args.select)
    caption_scores, _, _ = quickstart.test_stage(
        f'{row["name"]} seed {seed}: captioning, test split',
        plan['caption']['config'], plan['caption']['options'], captioner,
        osp.join(run_dir, 'test'), log=log)
    scores.update(caption_scores)
    scores.update(selected_val_scores(caption_dir, captioner))
    result = dict(row=row['name'], seed=seed, plan=plan, scores=scores,
                  commit=run_commit, checkpoint=captioner,
                  wall_s=time.time() - start,
                  loadavg_start=list(load_start),
                  loadavg_end=list(os.getloadavg()),
                  finished=datetime.datetime.now().isoformat(
                      timespec='seconds'))
    with open(osp.join(run_dir, 'result.json'), 'w') as f:
        json.dump(result, f, indent=1)
    return result


def selected_val_scores(caption_dir, checkpoint):
    """The validation of the tested checkpoint as ``val/<key>`` scores, the
    keys the tables read (:func:`checkpoint_validation`)."""
    from mmidc.utils.run_logs import checkpoint_validation
    found = checkpoint_validation(caption_dir, checkpoint)
    return {f'val/{key}': found[key] for key in ('CIDEr', 'truth/total')
            if key in found}


def finished_result(run_dir, plan):
    """The recorded result of a finished run (None if unfinished).

    Raises:
        SystemExit: the run was made with other configs or options.
    """
    path = osp.join(run_dir, 'result.json')
    if not osp.isfile(path):
        return None
    with open(path) as f:
        result = json.load(f)
    if result['plan'] != json.loads(json.dumps(plan)):
        sys.exit(f'{path}: this run was made with other settings than the '
                 f'row now has ({result["plan"]} vs {plan}): delete '
                 f'{run_dir} or choose another --work-dir')
    if 'val/CIDEr' not in result['scores']:  # recorded before the val columns
        result['scores'].update(selected_val_scores(
            osp.join(run_dir, 'caption'), result['checkpoint']))
    return result


def mean_sd(values):
    """``(mean, sample sd)`` of the values that are not None; sd is None
    with fewer than two values, both None with none."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


def format_mean_sd(mean, sd):
    if mean is None:
        return '-'
    return f'{mean:.2f}' if sd is None else f'{mean:.2f} ± {sd:.2f}'


def summarize(rows, results):
    """Per row: the runs, mean +- sd of every column, the wall time.

    Args:
        rows (list[dict]): The row table (its order is the table's).
        results (list[dict]): Finished runs (``row``, ``seed``, ``scores``,
            ``wall_s``).

    Returns:
        list[dict]: ``{'row', 'label', 'seeds', 'stats': {key: (mean, sd)},
        'wall_s': [...]}`` for each row with at least one finished run.
    """
    summary = []
    for row in rows:
        runs = sorted((r for r in results if r['row'] == row['name']),
                      key=lambda r: r['seed'])
        if not runs:
            continue
        stats = {key: mean_sd([r['scores'].get(key) for r in runs])
                 for key, _ in COLUMNS}
        summary.append(dict(row=row['name'], label=row['label'],
                            seeds=[r['seed'] for r in runs], stats=stats,
                            wall_s=[r['wall_s'] for r in runs]))
    return summary


def markdown_table(header, lines):
    out = ['| ' + ' | '.join(header) + ' |',
           '|' + '|'.join('---' for _ in header) + '|']
    out += ['| ' + ' | '.join(line) + ' |' for line in lines]
    return '\n'.join(out)


def format_minutes(seconds):
    return f'{seconds / 60:.1f} min'


def format_report(rows, results, meta):
    """The markdown document: the summary table, every run, the rows'
    settings, the machine, the commit and the command."""
    summary = summarize(rows, results)
    header = ['row', 'seeds'] + [h for _, h in COLUMNS] + ['wall / run']
    lines = []
    for entry in summary:
        mean_wall, _ = mean_sd(entry['wall_s'])
        lines.append([entry['label'], ' '.join(map(str, entry['seeds']))] + [
            format_mean_sd(*entry['stats'][key]) for key, _ in COLUMNS
        ] + [format_minutes(mean_wall)])
    runs = []
    order = {row['name']: i for i, row in enumerate(rows)}
    for r in sorted(results, key=lambda r: (order.get(r['row'], 1e9),
                                            r['seed'])):
        runs.append([r['row'], str(r['seed'])] + [
            f'{r["scores"][key]:.2f}' if r['scores'].get(key) is not None
            else '-' for key, _ in COLUMNS] + [format_minutes(r['wall_s']),
                                               r.get('commit') or
                                               'not recorded'])
    settings = [[row['name'], 'yes' if row['adapt'] else 'no',
                 ' '.join(f'`{o}`' for o in row.get('adapt_options', ()))
                 or '-',
                 ' '.join(f'`{o}`' for o in row.get('caption_options', ()))
                 or '-'] for row in rows]
    total_wall = sum(r['wall_s'] for r in results)
    parts = [
        f'# {meta.get("title") or DEFAULT_TITLE}',
        '',
        'The tiny from-scratch recipe (`configs/from_scratch/`) on the '
        'synthetic CLEVR-Change-style set, every row with the same data, '
        'schedules and budget per stage (rows without adaptation skip that '
        'stage). Each run validates every epoch and keeps the checkpoint '
        f'best on the val split (adaptation: `rsum`; captioning: '
        f'`{meta["select"]}`), then scores it once on the test split. '
        '"val": the validation of the chosen checkpoint (what choices between '
        'rows are made on); every other column: the test split. '
        'Mean ± sample standard deviation over the seeds; x100; CIDEr-D; '
        '"true %": captions entirely true of the scene graph '
        '(`CaptionTruthMetric`); R@1: retrieval on the test split after the '
        'adaptation stage (pair→text, text→pair).',
        '',
        markdown_table(header, lines),
        '',
        '## Every run',
        '',
        markdown_table(['row', 'seed'] + [h for _, h in COLUMNS]
                       + ['wall', 'commit'], runs),
        '',
        '## Rows',
        '',
        markdown_table(['row', 'adaptation', 'adaptation options',
                        'captioning options'], settings),
        '',
        'Options common to every row: adaptation '
        + ' '.join(f'`{o}`' for o in meta['adapt_options']) + '; captioning '
        + ' '.join(f'`{o}`' for o in meta['caption_options'])
        + '; seeds via `randomness.seed`.',
        '',
        '## Machine and command',
        '',
        f'- machine: {meta["machine"]}',
        '- commits: each run\'s own in the table of every run; this page '
        f'written at {meta["commit"]}',
        f'- command: `{meta["command"]}`',
        f'- written: {meta["written"]}; {len(results)} runs, '
        f'{format_minutes(total_wall)} of run wall time in all '
        f'(load average at the start/end of each run in its result.json)',
    ]
    return '\n'.join(parts) + '\n'


def machine_info():
    model = platform.processor() or 'unknown CPU'
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    load = ' '.join(f'{v:.2f}' for v in os.getloadavg())
    return (f'nproc {os.cpu_count()}, {model}, {platform.system()} '
            f'{platform.machine()}; load average now {load}')


def commit_info(table=None):
    """HEAD's short hash, marked when tracked files other than ``table``
    (the report this command rewrites) have uncommitted changes."""
    exclude = [f':(exclude){osp.relpath(osp.abspath(table), ROOT)}'] if table else []
    try:
        commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                                cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain',
                                '--untracked-files=no', '--', '.', *exclude],
                               cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown (no git)'
    return commit + (' with uncommitted changes' if dirty else '')


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    os.chdir(ROOT)
    sys.path.insert(0, ROOT)
    quickstart = load_quickstart()
    rows = load_rows(args.spec)
    if args.rows:
        unknown = set(args.rows) - {r['name'] for r in rows}
        if unknown:
            sys.exit(f'--rows: unknown {sorted(unknown)}; rows: '
                     f'{[r["name"] for r in rows]}')
        rows = [r for r in rows if r['name'] in args.rows]
    meta = dict(
        title=load_title(args.spec),
        commit=commit_info(args.out),
        select=args.select,
        adapt_options=[*COMMON_ADAPT_OPTIONS, *args.adapt_options],
        caption_options=[*COMMON_CAPTION_OPTIONS, *args.caption_options],
        command=' '.join(['python tools/analysis_tools/ablations.py']
                         + [shlex.quote(a) for a in argv]))

    if not args.dry_run:
        adapt_cfg = quickstart.load_config(quickstart.ADAPT_CFG)
        synth = adapt_cfg.get('synthetic_data', {})
        quickstart.banner('synthetic data and its image cache')
        quickstart.ensure_dataset(quickstart.DATA_ROOT, dict(
            num_scenes=synth['num_scenes'], seed=synth.get('seed', 0),
            image_size=tuple(synth['image_size'])), tuple(adapt_cfg.image_size),
            ('train', 'val', 'test'), args.workers)
    results = []
    for row in rows:
        for seed in args.seeds:
            run_dir = osp.join(args.work_dir, row['name'], f'seed{seed}')
            plan = run_options(row, seed, args, quickstart)
            result = finished_result(run_dir, plan)
            if result is not None:
                print(f'[ablations] {row["name"]} seed {seed}: finished '
                      f'({run_dir}/result.json): skipped', flush=True)
            elif args.dry_run:
                print(f'[ablations] {row["name"]} seed {seed}: to run in '
                      f'{run_dir} with {plan}', flush=True)
            else:
                result = train_and_test(row, seed, args, quickstart, run_dir)
                print(f'[ablations] {row["name"]} seed {seed}: CIDEr '
                      f'{result["scores"].get("CIDEr", float("nan")):.2f}, '
                      f'truth {result["scores"].get("truth/total", 0):.1f} %'
                      f' in {result["wall_s"]:.0f} s', flush=True)
            if result is not None:
                results.append(result)
            if results:  # the table so far, after every run
                meta.update(machine=machine_info(),
                            written=datetime.datetime.now().isoformat(
                                timespec='seconds'))
                os.makedirs(osp.dirname(osp.abspath(args.out)),
                            exist_ok=True)
                with open(args.out, 'w') as f:
                    f.write(format_report(rows, results, meta))
    print(f'[ablations] {len(results)} finished runs; table: {args.out}')
    return results


if __name__ == '__main__':
    main()
