"""CLIP4IDC's ablations in miniature: the tiny recipe on the synthetic set.

Each row (:data:`ROWS`, or the ``rows`` of a spec file) is a variant of the
quickstart's two stages: the adaptation config and the captioning config with
``--cfg-options`` overrides, the same schedules and data for every row. Per
row and seed (``randomness.seed``), in ``<work_dir>/<row>/seed<S>/``:

1. adaptation (rows with ``adapt``), validated every epoch, the checkpoint
   best on val by ``rsum`` kept, then scored once on the test split
   (retrieval R@1 both ways);
2. captioning, initialised from that checkpoint (rows with ``adapt``) or from
   random weights, validated every epoch, the checkpoint best on val by
   ``select`` (CIDEr, or a caption-truth key such as ``truth/total``) kept;
3. that checkpoint scored once on the test split and once on the shifted
   set (another seed and generator settings, never trained or chosen on):
   CIDEr-D and caption truth, total and per change type.

A run's ``result.json`` marks it finished: running again skips finished runs
and resumes an interrupted one (stages resume like the quickstart's). Rows
run one after the other. The markdown page (mean +- sd over the seeds, then
every run) records the machine, the wall time per row, the commits and the
command.
"""
import datetime
import json
import os
import os.path as osp
import time
from typing import List, Optional, Sequence

from mmengine.logging import print_log

from mmidc_lab.checkout import git_commit
from mmidc_lab.configs import config_label
from mmidc_lab.run_logs import best_checkpoint, checkpoint_validation
from . import ExperimentError
from .quickstart import (ADAPT_CFG, CAPTION_CFG, DATA_ROOT, SHIFTED_DATASET_CFG,
                         SHIFTED_PRESET, SHIFTED_ROOT, synthetic_data_kwargs)
from .run_configs import load_config, save_best_key
from .stages import banner, ensure_dataset, test_stage, train_stage
from .summary_tables import (format_mean_sd, format_minutes, machine_info,
                             markdown_table, mean_sd)

__all__ = ['ROWS', 'load_rows', 'load_title', 'load_subject', 'run_options',
           'train_and_test', 'finished_result', 'summarize', 'format_report',
           'write_page', 'run_ablations']

#: The title of the built-in rows' page; a spec file sets its own.
DEFAULT_TITLE = 'CLIP4IDC ablations in miniature'
#: What the built-in rows train, as the page's first sentence names it; a
#: spec file's ``subject`` replaces it.
DEFAULT_SUBJECT = 'The tiny from-scratch recipe (`projects/from_scratch/`)'
#: A page's text from this line on is written by hand and kept when the tool
#: writes the page again.
KEEP_MARKER = ('<!-- written by hand from here on: kept when this page is '
               'written again -->')

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
           ('adapt/p2t/R@1', 'R@1 p2t'), ('adapt/t2p/R@1', 'R@1 t2p'),
           ('adapt/p2t/R@5', 'R@5 p2t'), ('adapt/t2p/R@5', 'R@5 t2p'),
           ('shifted/CIDEr', 'shifted CIDEr-D'),
           ('shifted/truth/total', 'shifted true %'))
#: The per-type table: its change types, and its sets as (score key
#: prefix, name).
CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move', 'distractor')
SETS = (('', 'test'), ('shifted/', 'shifted'))


def type_keys(prefix: str = '') -> List[str]:
    """The per-type table's keys of one set: CIDEr-D, then caption truth,
    of every change type."""
    return ([f'{prefix}{t}/CIDEr' for t in CHANGE_TYPES] +
            [f'{prefix}truth/{t}' for t in CHANGE_TYPES])


def load_rows(spec: Optional[str] = None) -> List[dict]:
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


def load_title(spec: Optional[str] = None) -> str:
    """The page title: :data:`DEFAULT_TITLE` for the built-in rows, a spec
    file's ``title``, else the default and the spec's name (pages of
    different specs get different titles)."""
    if spec is None:
        return DEFAULT_TITLE
    from mmengine.config import Config
    name = osp.splitext(osp.basename(spec))[0]
    return Config.fromfile(spec).get('title') or f'{DEFAULT_TITLE}: {name}'


def load_subject(spec: Optional[str] = None) -> str:
    """What the rows train, for the page's first sentence: a spec file's
    ``subject``, else :data:`DEFAULT_SUBJECT`."""
    if spec is None:
        return DEFAULT_SUBJECT
    from mmengine.config import Config
    return Config.fromfile(spec).get('subject') or DEFAULT_SUBJECT


def run_options(row: dict, seed: int, select: str = 'CIDEr',
                adapt_options: Sequence[str] = (),
                caption_options: Sequence[str] = ()) -> dict:
    """The configs and ``KEY=VALUE`` options of both stages of a run.

    Args:
        row (dict): The row.
        seed (int): The run's seed.
        select (str): The val metric the captioner is chosen by.
        adapt_options (Sequence[str]): Options of every row's adaptation.
        caption_options (Sequence[str]): Options of every row's captioning.

    Returns:
        dict: ``adapt`` (None for a row without adaptation) and ``caption``,
        each ``dict(config=..., options=[...])``; the quickstart's configs by
        :func:`~mmidc_lab.configs.config_label` (relative to a clone's root,
        as a run records them).
    """
    seed_option = f'randomness.seed={seed}'
    adapt = dict(
        config=row.get('adapt_config', config_label(ADAPT_CFG)),
        options=[*COMMON_ADAPT_OPTIONS, *row.get('adapt_options', ()),
                 *adapt_options, seed_option])
    # without adaptation the captioner starts from random weights (the
    # recipe's config names the adaptation run's checkpoint)
    init = () if row['adapt'] else ('model.init_backbone_from=None', )
    caption = dict(
        config=row.get('caption_config', config_label(CAPTION_CFG)),
        options=[*COMMON_CAPTION_OPTIONS, *init,
                 *row.get('caption_options', ()), *caption_options,
                 seed_option,
                 f'default_hooks.checkpoint.save_best={select}'])
    return dict(adapt=adapt if row['adapt'] else None, caption=caption)


def train_and_test(row: dict, seed: int, plan: dict, run_dir: str,
                   select: str = 'CIDEr', page: Optional[str] = None,
                   shifted: bool = True) -> dict:
    """One run of one row (its :func:`run_options` ``plan``); returns its
    result, also written to ``run_dir/result.json``. ``page``: the report
    this command rewrites (its changes do not mark the commit);
    ``shifted``: also score the captioner on the shifted set's test split
    (``shifted/<key>`` scores; the set must exist)."""
    log = osp.join(run_dir, 'run.log')
    run_commit = commit_info(page)  # the code this run trains with
    start, load_start = time.time(), os.getloadavg()
    scores = {}
    init = []
    if plan['adapt'] is not None:
        adapt_dir = osp.join(run_dir, 'adapt')
        train_stage(f'{row["name"]} seed {seed}: adaptation',
                    plan['adapt']['config'], adapt_dir,
                    options=plan['adapt']['options'], log=log)
        adapted = best_checkpoint(adapt_dir, save_best_key(
            plan['adapt']['config'], plan['adapt']['options']))
        adapt_scores, _, _ = test_stage(
            f'{row["name"]} seed {seed}: adaptation, test split',
            plan['adapt']['config'], plan['adapt']['options'], adapted,
            osp.join(run_dir, 'adapt_test'), truth=False, log=log)
        scores.update({f'adapt/{k}': v for k, v in adapt_scores.items()})
        init = ['--cfg-options', f'model.init_backbone_from={adapted}']
    caption_dir = osp.join(run_dir, 'caption')
    train_stage(f'{row["name"]} seed {seed}: captioning',
                plan['caption']['config'], caption_dir, extra=init,
                options=plan['caption']['options'], log=log)
    captioner = best_checkpoint(caption_dir, select)
    caption_scores, _, _ = test_stage(
        f'{row["name"]} seed {seed}: captioning, test split',
        plan['caption']['config'], plan['caption']['options'], captioner,
        osp.join(run_dir, 'test'), log=log)
    scores.update(caption_scores)
    if shifted:
        shifted_scores, _, _ = test_stage(
            f'{row["name"]} seed {seed}: captioning, shifted test split',
            plan['caption']['config'], plan['caption']['options'], captioner,
            osp.join(run_dir, 'test_shifted'), SHIFTED_DATASET_CFG, log=log)
        scores.update({f'shifted/{k}': v for k, v in shifted_scores.items()})
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


def selected_val_scores(caption_dir: str, checkpoint: str) -> dict:
    """The validation of the tested checkpoint as ``val/<key>`` scores, the
    keys the tables read (:func:`checkpoint_validation`)."""
    found = checkpoint_validation(caption_dir, checkpoint)
    return {f'val/{key}': found[key] for key in ('CIDEr', 'truth/total')
            if key in found}


def finished_result(run_dir: str, plan: dict) -> Optional[dict]:
    """The recorded result of a finished run (None if unfinished).

    Raises:
        ExperimentError: The run was made with other configs or options.
    """
    path = osp.join(run_dir, 'result.json')
    if not osp.isfile(path):
        return None
    with open(path) as f:
        result = json.load(f)
    if result['plan'] != json.loads(json.dumps(plan)):
        raise ExperimentError(
            f'{path}: this run was made with other settings than the row now '
            f'has ({result["plan"]} vs {plan}): delete {run_dir} or choose '
            'another --work-dir')
    if 'val/CIDEr' not in result['scores']:  # recorded before the val columns
        result['scores'].update(selected_val_scores(
            osp.join(run_dir, 'caption'), result['checkpoint']))
    return result


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
        keys = [key for key, _ in COLUMNS]
        keys += [k for prefix, _ in SETS for k in type_keys(prefix)]
        stats = {key: mean_sd([r['scores'].get(key) for r in runs])
                 for key in keys}
        summary.append(dict(row=row['name'], label=row['label'],
                            seeds=[r['seed'] for r in runs], stats=stats,
                            wall_s=[r['wall_s'] for r in runs]))
    return summary


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
    per_type = []
    for entry in summary:
        for prefix, name in SETS:
            cells = [format_mean_sd(*entry['stats'][key])
                     for key in type_keys(prefix)]
            if any(cell != '-' for cell in cells):
                per_type.append([entry['label'], name] + cells)
    type_header = (['row', 'set'] + [f'{t} CIDEr-D' for t in CHANGE_TYPES]
                   + [f'{t} true %' for t in CHANGE_TYPES])
    settings = [[row['name'], 'yes' if row['adapt'] else 'no',
                 ' '.join(f'`{o}`' for o in row.get('adapt_options', ()))
                 or '-',
                 ' '.join(f'`{o}`' for o in row.get('caption_options', ()))
                 or '-'] for row in rows]
    total_wall = sum(r['wall_s'] for r in results)
    parts = [
        f'# {meta.get("title") or DEFAULT_TITLE}',
        '',
        f'{meta.get("subject") or DEFAULT_SUBJECT} on the '
        'synthetic CLEVR-Change-style set, every row with the same data, '
        'schedules and budget per stage (rows without adaptation skip that '
        'stage). Each run validates every epoch and keeps the checkpoint '
        f'best on the val split (adaptation: `rsum`; captioning: '
        f'`{meta["select"]}`), then scores it once on the test split. '
        '"val": the validation of the chosen checkpoint (what choices between '
        'rows are made on); every other column: the test split. '
        'Mean ± sample standard deviation over the seeds; x100; CIDEr-D; '
        '"true %": captions entirely true of the scene graph '
        '(`CaptionTruthMetric`); R@1, R@5: retrieval on the test split after '
        'the adaptation stage (pair→text, text→pair); "shifted": the same '
        'captioner on the test split of the shifted set (another seed and '
        'generator settings, never trained or chosen on).',
        '',
        markdown_table(header, lines),
        '',
        '## Per change type',
        '',
        'Mean ± sd over the seeds of each row\'s tested captioner: CIDEr-D '
        'and the share of captions entirely true, per change type '
        '("distractor": the no-change pairs), on the test split and on the '
        'shifted set.',
        '',
        markdown_table(type_header, per_type),
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


def commit_info(table: Optional[str] = None) -> str:
    """HEAD's short hash, marked when tracked files other than ``table``
    (the report this command rewrites) have uncommitted changes."""
    found = git_commit(exclude=[table] if table else [], untracked=False)
    if found is None:
        return 'unknown (no git)'
    commit, dirty = found
    return commit + (' with uncommitted changes' if dirty else '')


def write_page(page: str, report: str) -> None:
    """Write ``report`` to ``page``, keeping the page's text from
    :data:`KEEP_MARKER` on (written by hand) after it."""
    kept = ''
    if osp.isfile(page):
        with open(page) as f:
            old = f.read()
        if KEEP_MARKER in old:
            kept = '\n' + old[old.index(KEEP_MARKER):]
    os.makedirs(osp.dirname(osp.abspath(page)), exist_ok=True)
    tmp = page + '.tmp'
    with open(tmp, 'w') as f:
        f.write(report.rstrip('\n') + '\n' + kept)
    os.replace(tmp, page)


def run_ablations(rows: List[dict], seeds: Sequence[int], work_dir: str,
                  page: str, meta: dict, select: str = 'CIDEr',
                  adapt_options: Sequence[str] = (),
                  caption_options: Sequence[str] = (), workers: int = 2,
                  dry_run: bool = False, shifted: bool = True) -> List[dict]:
    """Run every row and seed not finished yet; the page (``page``) is
    written after every run.

    Args:
        rows (list[dict]): The rows (:func:`load_rows`), in table order.
        seeds (Sequence[int]): The seeds of each row.
        work_dir (str): ``<work_dir>/<row>/seed<S>/`` holds each run.
        page (str): The markdown file for the tables.
        meta (dict): What the page says besides the runs: ``title``,
            ``command``, ``commit`` (of the page), ``select``,
            ``adapt_options`` and ``caption_options`` (common to every row).
        select (str): The val metric the captioner is chosen by.
        adapt_options (Sequence[str]): Options of every row's adaptation.
        caption_options (Sequence[str]): Options of every row's captioning.
        workers (int): Processes for data generation and caching.
        dry_run (bool): Log the runs to make and write the page of the
            finished ones; train nothing.
        shifted (bool): Score every captioner on the shifted set too
            (generated and cached if absent).

    Returns:
        list[dict]: The finished runs' results.
    """
    # A finished run of other settings is an error before anything is
    # trained or the page rewritten (it would lose the rows after it).
    for row in rows:
        for seed in seeds:
            finished_result(osp.join(work_dir, row['name'], f'seed{seed}'),
                            run_options(row, seed, select, adapt_options,
                                        caption_options))
    if not dry_run:
        adapt_cfg = load_config(ADAPT_CFG)
        banner('synthetic data and its image cache')
        ensure_dataset(DATA_ROOT, synthetic_data_kwargs(adapt_cfg),
                       tuple(adapt_cfg.image_size), ('train', 'val', 'test'),
                       workers)
        if shifted:
            from mmidc.synthetic import PRESETS
            banner('the shifted evaluation set and its image cache')
            ensure_dataset(SHIFTED_ROOT, PRESETS[SHIFTED_PRESET],
                           tuple(adapt_cfg.image_size), ('test', ), workers)
    results = []
    for row in rows:
        for seed in seeds:
            run_dir = osp.join(work_dir, row['name'], f'seed{seed}')
            plan = run_options(row, seed, select, adapt_options,
                               caption_options)
            result = finished_result(run_dir, plan)
            if result is not None:
                print_log(f'[ablations] {row["name"]} seed {seed}: finished '
                          f'({run_dir}/result.json): skipped', logger='current')
            elif dry_run:
                print_log(f'[ablations] {row["name"]} seed {seed}: to run in '
                          f'{run_dir} with {plan}', logger='current')
            else:
                result = train_and_test(row, seed, plan, run_dir, select, page,
                                        shifted)
                print_log(f'[ablations] {row["name"]} seed {seed}: CIDEr '
                          f'{result["scores"].get("CIDEr", float("nan")):.2f}, '
                          f'truth {result["scores"].get("truth/total", 0):.1f} %'
                          f' in {result["wall_s"]:.0f} s', logger='current')
            if result is not None:
                results.append(result)
            if results:  # the table so far, after every run
                meta.update(machine=machine_info(),
                            written=datetime.datetime.now().isoformat(
                                timespec='seconds'))
                write_page(page, format_report(rows, results, meta))
    return results
