"""IDC-PCL's ablation (its paper's Table 4) in miniature, on the synthetic
CLEVR-Change-style set with the tiny CPU configs.

Rows (each: pre-training, if any, then fine-tuning, then the test split):

    no-pretraining   fine-tuning from random weights
    mlm              pre-training with MLM only
    mlm-mvcl         MLM + MVCL (8 : 1)
    mlm-mvcl-fda     MLM + MVCL + FDA (8 : 1 : 2), the full recipe
    no-diff-encoder  the full recipe without F_sing and F_pair
    no-distractor    the full recipe, fine-tuned without the distractor judge

Every run of a row and seed: ``python -m mmidc.cli.train`` (pre-training),
then ``python -m mmidc.cli.train`` (fine-tuning; the checkpoint is chosen on
val by CIDEr-D), then ``python -m mmidc.cli.test`` once on the test split
with that checkpoint (the shipped ``mmidc::idc_pcl/`` configs). Finished
stages are skipped when a run is made again, so an interrupted ablation
resumes. Each run's wall and CPU time and the load average are recorded
(``<work_dir>/<row>/seed<S>/result.json``); :func:`summarise` tabulates the
test CIDEr-D (mean +- sd over seeds, total and per change type) in
``<work_dir>/summary.md``.
"""
import glob
import json
import os
import os.path as osp
import statistics
import sys
from typing import Optional, Sequence

from mmengine.config import Config
from mmengine.logging import print_log

from mmidc_lab.checkout import git_commit
from mmidc_lab.configs import core_config
from mmidc_lab.run_logs import (best_checkpoint, checkpoint_validation,
                                    newest_file)
from .stages import banner, ensure_dataset, timed_stage
from .summary_tables import format_mean_sd, markdown_table, mean_sd, run_commits

__all__ = ['ROWS', 'LABELS', 'prepare_data', 'run_one', 'summarise',
           'run_ablation']

DATA_ROOT = 'data/synthetic_clevr_change'
CFG = 'mmidc::idc_pcl/idc-pcl-{stage}_tiny_synthetic-clevr-change.py'
NODE_CFG = 'mmidc::idc_pcl/idc-pcl-nodiffenc-{stage}_tiny_synthetic-clevr-change.py'
NOJUDGE_CFG = 'mmidc::idc_pcl/idc-pcl-nodistractor-caption_tiny_synthetic-clevr-change.py'

#: row -> (pre-training config or None, fine-tuning config, pre-training
#: --cfg-options); configs by their ``mmidc::`` name with ``{stage}``
#: (:func:`config_file`)
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
STAGES = ('pretrain', 'caption', 'test')


def config_file(name: str, stage: str) -> str:
    """The file of a row's config (:data:`ROWS`) for ``stage``."""
    return core_config(name.format(stage=stage))


def prepare_data() -> None:
    """The synthetic set (as the quickstart makes it), its 96x144 cache,
    the training split's caption vocabulary and hard negatives, when absent
    (made in this process)."""
    # what the quickstart generates (its adaptation config's synthetic_data:
    # 3000 scenes of 240x160, seed 0)
    ensure_dataset(DATA_ROOT, dict(num_scenes=3000, seed=0,
                                   image_size=(240, 160)),
                   (96, 144), ('train', 'val', 'test'), workers=1)
    if not osp.isfile(osp.join(DATA_ROOT, 'hard_negatives_train.json')):
        ensure_hard_negatives(DATA_ROOT)


def ensure_hard_negatives(root: str, split: str = 'train',
                          seed: int = 0) -> str:
    """Write the hard negative captions of a split of the
    CLEVR-Change-style set at ``root`` with the generator's defaults (what
    ``make_hard_negatives.py --dataset-type CLEVRChangeDataset`` writes) to
    ``hard_negatives_<split>.json`` next to its annotations.

    Returns:
        str: The file written.
    """
    from mmengine.registry import init_default_scope

    import mmidc  # noqa: F401  (registers the data sets)
    from mmidc.datasets.preparation.hard_negatives import (
        HardNegativeGenerator, hard_negatives_path, write_hard_negatives)
    from mmidc.registry import DATASETS
    init_default_scope('mmidc')
    dataset = DATASETS.build(dict(type='CLEVRChangeDataset', data_root=root,
                                  split=split, pipeline=[]))
    generator = HardNegativeGenerator(
        [dataset.get_data_info(i)['gt_captions'] for i in range(len(dataset))],
        seed=seed)
    negatives = generator.generate()
    out = hard_negatives_path(dataset)
    write_hard_negatives(out, negatives, dataset, generator, seed)
    print_log(f'wrote {out}: hard negatives of {len(negatives)} captions',
              logger='current')
    return out


def run_one(row: str, seed: int, work_dir: str, threads: int = 1) -> dict:
    """The three stages of a row's run (those not done yet); returns its
    record, also written to ``<work_dir>/<row>/seed<S>/result.json``."""
    pre_cfg, cap_cfg, pre_options = ROWS[row]
    base = osp.join(work_dir, row, f'seed{seed}')
    record = dict(row=row, seed=seed, commit=commit_info())
    py, here = sys.executable, os.getcwd()
    init_from = 'None'
    if pre_cfg is not None:
        pre_dir = osp.join(base, 'pretrain')
        timed_stage('pretrain', pre_dir,
                    [py, '-m', 'mmidc.cli.train',
                     config_file(pre_cfg, 'pretrain'),
                     '--work-dir', pre_dir, '--cfg-options',
                     f'randomness.seed={seed}', f'model.task_seed={seed}',
                     *pre_options], threads, record)
        init_from = newest_file(osp.join(here, pre_dir, 'epoch_*.pth'))
    cap_dir = osp.join(base, 'caption')
    cfg = config_file(cap_cfg, 'caption')
    timed_stage('caption', cap_dir,
                [py, '-m', 'mmidc.cli.train', cfg, '--work-dir', cap_dir,
                 '--cfg-options', f'randomness.seed={seed}',
                 f'model.init_from={init_from}'], threads, record)
    best = best_checkpoint(osp.join(here, cap_dir), 'CIDEr')
    # the synthetic set's evaluators: IDCMetric (predictions saved), caption truth
    evaluators = Config.fromfile(cfg).test_evaluator
    assert evaluators[0]['type'] == 'IDCMetric', evaluators
    test_dir = osp.join(base, 'test')
    timed_stage('test', test_dir,
                [py, '-m', 'mmidc.cli.test', cfg, best, '--work-dir',
                 test_dir,
                 '--cfg-options', f'test_evaluator.0.output_dir={test_dir}'],
                threads, record)
    with open(osp.join(test_dir, 'test_scores.json')) as f:
        record['test_scores'] = json.load(f)
    record['val_CIDEr'] = checkpoint_validation(cap_dir, best).get('CIDEr')
    record['checkpoint'] = osp.relpath(best)
    with open(osp.join(base, 'result.json'), 'w') as f:
        json.dump(record, f, indent=1)
    return record


def commit_info() -> Optional[str]:
    """The commit of the code (with '+' when the package, the configs or
    the lab have uncommitted changes)."""
    found = git_commit(paths=('mmidc', 'configs', 'mmidc_lab'))
    return None if found is None else found[0] + ('+' if found[1] else '')


def cider(scores: dict, subset: str) -> Optional[float]:
    key = 'CIDEr' if subset == 'total' else f'{subset}/CIDEr'
    return scores.get(key)


def caption_truth(run_dir: str) -> float:
    """Share (x100) of the run's test captions entirely true of the scene
    graph, graded from its predictions file (``CaptionTruthMetric``'s
    checker; the newest, where a test stage that ran again left two)."""
    from mmidc.evaluation.metrics.caption_truth import truth_scores
    from mmidc.synthetic.caption_grading import grade_records
    predictions = newest_file(osp.join(run_dir, 'test', 'predictions_*.json'))
    with open(predictions) as f:
        records = json.load(f)
    return truth_scores(records, grade_records(
        records, osp.join(os.getcwd(), DATA_ROOT)))['total']


def summarise(work_dir: str) -> str:
    """Tabulate the finished runs under ``work_dir``: ``summary.md`` (the
    returned table) and ``summary.json`` (the runs' records, with each
    test's caption truth and the tested checkpoint's val CIDEr)."""
    records = []
    for path in sorted(glob.glob(osp.join(work_dir, '*', 'seed*',
                                          'result.json'))):
        with open(path) as f:
            records.append(json.load(f))
        records[-1]['test_truth'] = caption_truth(osp.dirname(path))
        caption_dir = osp.join(osp.dirname(path), 'caption')
        if osp.isdir(caption_dir):  # the tested checkpoint's val score
            records[-1]['val_CIDEr'] = checkpoint_validation(
                caption_dir, records[-1]['checkpoint']).get('CIDEr')
    header = (['row', 'seeds', 'val CIDEr', 'test CIDEr total', *SUBSETS[1:],
               'test captions true %', 'wall min / run', 'CPU min / run',
               'commits'])
    lines = []
    for row in ROWS:
        runs = [r for r in records if r['row'] == row]
        if not runs:
            continue

        def mean(key, runs=runs):  # minutes per run, over the stages
            return statistics.mean(sum(r[s][key] for s in STAGES if s in r)
                                   for r in runs) / 60

        lines.append(
            [LABELS[row], ','.join(str(r['seed']) for r in runs),
             format_mean_sd(*mean_sd(r['val_CIDEr'] for r in runs))] +
            [format_mean_sd(*mean_sd(cider(r['test_scores'], s) for r in runs))
             for s in SUBSETS] +
            [format_mean_sd(*mean_sd(r['test_truth'] for r in runs)),
             f'{mean("wall_s"):.1f}', f'{mean("cpu_s"):.1f}', run_commits(runs)])
    table = markdown_table(header, lines)
    with open(osp.join(work_dir, 'summary.md'), 'w') as f:
        f.write(table + '\n')
    with open(osp.join(work_dir, 'summary.json'), 'w') as f:
        json.dump(records, f, indent=1)
    return table


def run_ablation(rows: Sequence[str], seeds: Sequence[int], work_dir: str,
                 threads: int = 1) -> None:
    """Prepare the data, then run every row of every seed (seed by seed),
    the table rewritten (and logged) after each run."""
    prepare_data()
    for seed in seeds:
        for row in rows:
            banner(f'{row}, seed {seed}')
            run_one(row, seed, work_dir, threads)
            print_log('\n' + summarise(work_dir), logger='current')
