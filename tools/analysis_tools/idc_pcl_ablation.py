"""IDC-PCL's ablation (its paper's Table 4) in miniature, on the synthetic
CLEVR-Change-style set with the tiny CPU configs.

    python tools/analysis_tools/idc_pcl_ablation.py \
        [--rows ROW ...] [--seeds 0 1 2] [--work-dir work_dirs/idc_pcl_ablation]

Rows (each: pre-training, if any, then fine-tuning, then the test split):

    no-pretraining   fine-tuning from random weights
    mlm              pre-training with MLM only
    mlm-mvcl         MLM + MVCL (8 : 1)
    mlm-mvcl-fda     MLM + MVCL + FDA (8 : 1 : 2), the full recipe
    no-diff-encoder  the full recipe without F_sing and F_pair
    no-distractor    the full recipe, fine-tuned without the distractor judge

Every run of a row and seed: ``tools/train.py`` (pre-training), then
``tools/train.py`` (fine-tuning; the checkpoint is chosen on val by CIDEr-D),
then ``tools/test.py`` once on the test split with that checkpoint. Finished
stages are skipped when the command runs again, so an interrupted ablation
resumes. The data set, its 96x144 cache and its hard negatives are made
first when absent. Each run's wall and CPU time and the load average are
recorded; the table of test CIDEr-D (mean +- sd over seeds, total and per
change type) goes to ``<work-dir>/summary.md`` and is printed.

``--threads`` sets the training processes' threads (default 1: on a shared
2-core machine one thread per process keeps its steps steady).
"""
import argparse
import glob
import json
import os
import os.path as osp
import resource
import statistics
import subprocess
import sys
import time

from mmengine.config import Config

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
DATA_ROOT = 'data/synthetic_clevr_change'
CFG = 'configs/idc_pcl/idc-pcl-{stage}_tiny_synthetic-clevr-change.py'
NODE_CFG = 'configs/idc_pcl/idc-pcl-nodiffenc-{stage}_tiny_synthetic-clevr-change.py'
NOJUDGE_CFG = 'configs/idc_pcl/idc-pcl-nodistractor-caption_tiny_synthetic-clevr-change.py'

#: row -> (pre-training config or None, fine-tuning config, pre-training
#: --cfg-options)
ROWS = {
    'no-pretraining': (None, CFG, []),
    'mlm': (CFG, CFG, ['model.task_weights.mvcl=0', 'model.task_weights.fda=0']),
    'mlm-mvcl': (CFG, CFG, ['model.task_weights.fda=0']),
    'mlm-mvcl-fda': (CFG, CFG, []),
    'no-diff-encoder': (NODE_CFG, NODE_CFG, []),
    'no-distractor': (CFG, NOJUDGE_CFG, []),
}
LABELS = {
    'no-pretraining': 'no pre-training',
    'mlm': 'MLM',
    'mlm-mvcl': 'MLM + MVCL',
    'mlm-mvcl-fda': 'MLM + MVCL + FDA',
    'no-diff-encoder': 'MLM + MVCL + FDA, w/o difference encoder',
    'no-distractor': 'MLM + MVCL + FDA, w/o distractor judging',
}
SUBSETS = ('total', 'color', 'material', 'add', 'drop', 'move', 'distractor')


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--rows', nargs='+', choices=list(ROWS), default=list(ROWS))
    p.add_argument('--seeds', nargs='+', type=int, default=[0, 1, 2])
    p.add_argument('--work-dir', default='work_dirs/idc_pcl_ablation')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--summary-only', action='store_true',
                   help='only tabulate the finished runs')
    return p.parse_args()


def run(cmd, threads):
    """Run a command in the repo root; returns (wall s, CPU s)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    print('$ ' + ' '.join(cmd), flush=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.time() - t0, cpu


def prepare_data(threads):
    """The synthetic set (as tools/quickstart.py makes it), its 96x144
    cache, the training split's caption vocabulary and hard negatives, when
    absent."""
    if not osp.isfile(osp.join(ROOT, DATA_ROOT, 'splits.json')):
        # what tools/quickstart.py generates (its adaptation config's
        # synthetic_data: 3000 scenes of 240x160, seed 0)
        run([sys.executable, 'tools/generate_synthetic_clevr_change.py',
             DATA_ROOT, '--num-scenes', '3000', '--image-size', '240x160',
             '--seed', '0'], threads)
    run([sys.executable, 'tools/dataset_converters/build_resized_cache.py',
         '--dataset-type', 'CLEVRChangeDataset', '--data-root', DATA_ROOT,
         '--splits', 'train', 'val', 'test', '--size', '96', '144'], threads)
    if not osp.isfile(osp.join(ROOT, DATA_ROOT, 'caption_vocab_train.json')):
        run([sys.executable, 'tools/dataset_converters/build_vocab.py',
             '--dataset-type', 'CLEVRChangeDataset', '--data-root', DATA_ROOT], threads)
    if not osp.isfile(osp.join(ROOT, DATA_ROOT, 'hard_negatives_train.json')):
        run([sys.executable, 'tools/dataset_converters/make_hard_negatives.py',
             '--dataset-type', 'CLEVRChangeDataset', '--data-root', DATA_ROOT,
             '--split', 'train', '--seed', '0'], threads)


def newest(pattern):
    found = sorted(glob.glob(pattern), key=osp.getmtime)
    if not found:
        raise FileNotFoundError(f'nothing matches {pattern}')
    return found[-1]


def stage(name, work_dir, cmd, threads, record):
    """Run one stage unless its DONE marker exists; keep its times."""
    done = osp.join(ROOT, work_dir, 'DONE')
    if osp.isfile(done):
        with open(done) as f:
            record[name] = json.load(f)
        print(f'[{name}] done before: {work_dir}', flush=True)
        return
    load_before = open('/proc/loadavg').read().split()[:3]
    wall, cpu = run(cmd, threads)
    load_after = open('/proc/loadavg').read().split()[:3]
    record[name] = dict(wall_s=round(wall, 1), cpu_s=round(cpu, 1),
                        loadavg_before=load_before, loadavg_after=load_after)
    with open(done, 'w') as f:
        json.dump(record[name], f)


def run_one(row, seed, args):
    pre_cfg, cap_cfg, pre_options = ROWS[row]
    base = osp.join(args.work_dir, row, f'seed{seed}')
    record = dict(row=row, seed=seed, commit=git_commit())
    py = sys.executable
    init_from = 'None'
    if pre_cfg is not None:
        pre_dir = osp.join(base, 'pretrain')
        stage('pretrain', pre_dir,
              [py, 'tools/train.py', pre_cfg.format(stage='pretrain'),
               '--work-dir', pre_dir, '--cfg-options',
               f'randomness.seed={seed}', f'model.task_seed={seed}',
               *pre_options], args.threads, record)
        init_from = newest(osp.join(ROOT, pre_dir, 'epoch_*.pth'))
    cap_dir = osp.join(base, 'caption')
    cfg = cap_cfg.format(stage='caption')
    stage('caption', cap_dir,
          [py, 'tools/train.py', cfg, '--work-dir', cap_dir, '--cfg-options',
           f'randomness.seed={seed}', f'model.init_from={init_from}'],
          args.threads, record)
    best = newest(osp.join(ROOT, cap_dir, 'best_CIDEr_*.pth'))
    # the synthetic set's evaluators: IDCMetric (predictions saved), caption truth
    evaluators = Config.fromfile(osp.join(ROOT, cfg)).test_evaluator
    assert evaluators[0]['type'] == 'IDCMetric', evaluators
    test_dir = osp.join(base, 'test')
    stage('test', test_dir,
          [py, 'tools/test.py', cfg, best, '--work-dir', test_dir,
           '--cfg-options', f'test_evaluator.0.output_dir={test_dir}'],
          args.threads, record)
    with open(osp.join(ROOT, test_dir, 'test_scores.json')) as f:
        record['test_scores'] = json.load(f)
    record['val_CIDEr'] = selected_val_cider(osp.join(ROOT, cap_dir), best)
    record['checkpoint'] = osp.relpath(best, ROOT)
    with open(osp.join(ROOT, base, 'result.json'), 'w') as f:
        json.dump(record, f, indent=1)
    return record


def git_commit():
    """The checkout's commit (with '+' when it has uncommitted changes)."""
    try:
        commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                                cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain', '--',
                                'mmidc', 'configs', 'tools'], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return commit + ('+' if dirty else '')
    except (OSError, subprocess.CalledProcessError):
        return None


def selected_val_cider(work_dir, checkpoint):
    """The val CIDEr of the tested checkpoint ``best_CIDEr_epoch_N.pth``
    (:func:`checkpoint_validation`), or None."""
    from mmidc.utils.run_logs import checkpoint_validation
    return checkpoint_validation(work_dir, checkpoint).get('CIDEr')


def run_commits(runs):
    """The commits the runs trained with (each recorded by its own run, not
    by the summary), in run order without repeats."""
    commits = [r.get('commit') or 'not recorded' for r in runs]
    return ', '.join(dict.fromkeys(commits))


def cider(scores, subset):
    key = 'CIDEr' if subset == 'total' else f'{subset}/CIDEr'
    return scores.get(key)


def mean_sd(values):
    values = [v for v in values if v is not None]
    if not values:
        return '-'
    if len(values) == 1:
        return f'{values[0]:.2f}'
    return f'{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}'


def caption_truth(run_dir):
    """Share (x100) of the run's test captions entirely true of the scene
    graph, graded from its predictions file (``CaptionTruthMetric``'s
    checker; the newest, where a test stage that ran again left two)."""
    from mmidc.evaluation.metrics.caption_truth import (grade_records,
                                                        truth_scores)
    predictions = newest(osp.join(run_dir, 'test', 'predictions_*.json'))
    with open(predictions) as f:
        records = json.load(f)
    return truth_scores(records, grade_records(
        records, osp.join(ROOT, DATA_ROOT)))['total']


def summarise(work_dir):
    records = []
    for path in sorted(glob.glob(osp.join(ROOT, work_dir, '*', 'seed*',
                                          'result.json'))):
        with open(path) as f:
            records.append(json.load(f))
        records[-1]['test_truth'] = caption_truth(osp.dirname(path))
        caption_dir = osp.join(osp.dirname(path), 'caption')
        if osp.isdir(caption_dir):  # the tested checkpoint's val score
            records[-1]['val_CIDEr'] = selected_val_cider(
                caption_dir, records[-1]['checkpoint'])
    lines = ['| row | seeds | val CIDEr | test CIDEr total | ' +
             ' | '.join(SUBSETS[1:]) + ' | test captions true % | '
             'wall min / run | CPU min / run | commits |',
             '|' + '---|' * (len(SUBSETS) + 7)]
    for row in ROWS:
        runs = [r for r in records if r['row'] == row]
        if not runs:
            continue
        cells = [mean_sd([cider(r['test_scores'], s) for r in runs]) for s in SUBSETS]
        wall = statistics.mean(sum(r[s]['wall_s'] for s in ('pretrain', 'caption', 'test')
                                   if s in r) for r in runs) / 60
        cpu = statistics.mean(sum(r[s]['cpu_s'] for s in ('pretrain', 'caption', 'test')
                                  if s in r) for r in runs) / 60
        seeds = ','.join(str(r['seed']) for r in runs)
        lines.append(f'| {LABELS[row]} | {seeds} | '
                     f'{mean_sd([r["val_CIDEr"] for r in runs])} | ' +
                     ' | '.join(cells) +
                     f' | {mean_sd([r["test_truth"] for r in runs])}'
                     f' | {wall:.1f} | {cpu:.1f} | {run_commits(runs)} |')
    table = '\n'.join(lines)
    with open(osp.join(ROOT, work_dir, 'summary.md'), 'w') as f:
        f.write(table + '\n')
    with open(osp.join(ROOT, work_dir, 'summary.json'), 'w') as f:
        json.dump(records, f, indent=1)
    print(table)


def main():
    args = parse_args()
    os.chdir(ROOT)
    if not args.summary_only:
        prepare_data(args.threads)
        for seed in args.seeds:
            for row in args.rows:
                print(f'\n=== {row}, seed {seed} ' + '=' * 40, flush=True)
                run_one(row, seed, args)
                summarise(args.work_dir)
    summarise(args.work_dir)


if __name__ == '__main__':
    main()
