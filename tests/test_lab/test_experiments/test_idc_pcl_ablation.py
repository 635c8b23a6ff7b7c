"""mmidc_lab.experiments.idc_pcl_ablation without training: the table of
finished runs (``summarise``, caption truth graded on a tiny generated set)
and the three stages of a run (``run_one``) with the stages' command runner
replaced by a recorder that leaves what each real stage leaves."""
import json
import math
import os
import os.path as osp
import sys
from pathlib import Path

import pytest

from mmidc_lab.configs import core_config
from mmidc_lab.experiments import idc_pcl_ablation as ablation
from mmidc_lab.experiments import stages as experiment_stages
from tests.helpers import REPO, load_tool
from tests.helpers.pair_trees import (make_clevr_change_tree,
                                      make_synthetic_change_pairs)
from tests.helpers.run_logs import write_scalars

PRE = core_config(
    'mmidc::idc_pcl/idc-pcl-pretrain_tiny_synthetic-clevr-change.py')
CAP = core_config(
    'mmidc::idc_pcl/idc-pcl-caption_tiny_synthetic-clevr-change.py')
NODE_PRE = core_config('mmidc::idc_pcl/'
                       'idc-pcl-nodiffenc-pretrain_tiny_synthetic-clevr-change.py')
NODE_CAP = core_config('mmidc::idc_pcl/'
                       'idc-pcl-nodiffenc-caption_tiny_synthetic-clevr-change.py')
NOJUDGE_CAP = core_config(
    'mmidc::idc_pcl/'
    'idc-pcl-nodistractor-caption_tiny_synthetic-clevr-change.py')
TRAIN = [sys.executable, '-m', 'mmidc.cli.train']
TEST = [sys.executable, '-m', 'mmidc.cli.test']
#: row -> (pre-training config or None, fine-tuning config, the pre-training
#: task-weight options), as the paper's Table 4 rows read
ROW_COMMANDS = {
    'no-pretraining': (None, CAP, None),
    'mlm': (PRE, CAP,
            ['model.task_weights.mvcl=0', 'model.task_weights.fda=0']),
    'mlm-mvcl': (PRE, CAP, ['model.task_weights.fda=0']),
    'mlm-mvcl-fda': (PRE, CAP, []),
    'no-diff-encoder': (NODE_PRE, NODE_CAP, []),
    'no-distractor': (PRE, NOJUDGE_CAP, []),
}
TYPES = ('color', 'material', 'add', 'drop', 'move', 'distractor')


def test_rows_are_the_papers_table_4():
    assert list(ablation.ROWS) == list(ROW_COMMANDS)
    assert ablation.LABELS['no-distractor'] == (
        'MLM + MVCL + FDA, w/o distractor judging')


def test_the_no_distractor_row_differs_only_in_the_judge():
    """Its fine-tuning config is the full recipe's without the distractor
    judge; everything else (data, schedule, model) the same."""
    from mmengine.config import Config
    full = Config.fromfile(CAP).to_dict()
    no_judge = Config.fromfile(NOJUDGE_CAP).to_dict()
    assert full['model']['distractor_loss'] == dict(type='DistractorJudgingLoss')
    assert no_judge['model'].pop('distractor_loss') is None
    full['model'].pop('distractor_loss')
    assert no_judge == full


def two(a, b):
    """Mean and sample sd of two values, by hand, as the table prints them."""
    return f'{(a + b) / 2:.2f} ± {abs(a - b) / math.sqrt(2):.2f}'


def cells(line):
    return [c.strip() for c in line.strip().strip('|').split('|')]


# ---------------------------------------------------------------- summarise


def synthetic_pairs(root):
    """4 generated scenes: (pair id, change type, a reference) of each change
    pair."""
    return [(pair_id, change_type, refs[0]) for pair_id, change_type, refs
            in make_synthetic_change_pairs(root, 4, seed=5)]


def predictions(pairs, false_change=(), false_distractor=()):
    """Records as IDCMetric saves them. Change pair ``i`` gets its own
    reference (true by construction), or a no-change sentence when ``i`` is
    in ``false_change``; its distractor a no-change sentence (true), or the
    change reference when in ``false_distractor``."""
    records = []
    for i, (pair_id, change_type, ref) in enumerate(pairs):
        records.append(dict(
            pair_id=pair_id, change_type=change_type, references=[ref],
            prediction='there is no change' if i in false_change else ref))
        records.append(dict(
            pair_id=pair_id + '_n', change_type='none',
            references=['there is no change'],
            prediction=ref if i in false_distractor else 'there is no change'))
    return records


def finished_run(work, row, seed, scores, val, times, records, mtime=None,
                 commit='abc1234'):
    """``<work>/<row>/seed<S>``: result.json as run_one writes it and the test
    stage's predictions file."""
    base = osp.join(work, row, f'seed{seed}')
    os.makedirs(osp.join(base, 'test'), exist_ok=True)
    result = dict(row=row, seed=seed, commit=commit, test_scores=scores,
                  val_CIDEr=val, checkpoint='x.pth')
    for stage, (wall, cpu) in times.items():
        result[stage] = dict(wall_s=wall, cpu_s=cpu,
                             loadavg_before=['1.0'] * 3,
                             loadavg_after=['1.0'] * 3)
    with open(osp.join(base, 'result.json'), 'w') as f:
        json.dump(result, f)
    path = osp.join(base, 'test', 'predictions_20260101_000000.json')
    with open(path, 'w') as f:
        json.dump(records, f)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return base


def scores_of(total, per_type):
    scores = {'CIDEr': total, 'Bleu_4': total + 1.0}
    for change_type, value in zip(TYPES, per_type):
        if value is not None:
            scores[f'{change_type}/CIDEr'] = value
            scores[f'{change_type}/Bleu_4'] = value + 1.0
    return scores


def test_summary_table(tmp_path, monkeypatch):
    data_root = str(tmp_path / 'synth')
    pairs = synthetic_pairs(data_root)
    assert len(pairs) == 4
    monkeypatch.setattr(ablation, 'DATA_ROOT', data_root)
    work = str(tmp_path / 'work')

    # MLM, seeds 0 and 1: 7 of 8 test captions true (one distractor given
    # the change sentence), then 4 of 8 (every change pair called unchanged)
    finished_run(work, 'mlm', 0,
                 scores_of(40.0, [50.0, 30.0, 20.0, 10.0, 25.0, 90.0]), 45.0,
                 dict(pretrain=(60, 30), caption=(120, 60), test=(60, 30)),
                 predictions(pairs, false_distractor={2}))
    base = finished_run(
        work, 'mlm', 1,
        scores_of(46.0, [53.0, 34.0, 21.0, 16.0, 27.0, 95.0]), 49.0,
        dict(pretrain=(90, 60), caption=(180, 120), test=(90, 60)),
        predictions(pairs, false_change={0, 1, 2, 3}), mtime=2e9,
        commit='def5678')  # each run's own commit
    # an earlier, interrupted test of that run left an older predictions
    # file (every caption false): the newest one is graded
    stale = osp.join(base, 'test', 'predictions_20250101_000000.json')
    with open(stale, 'w') as f:
        json.dump(predictions(pairs, false_change={0, 1, 2, 3},
                              false_distractor={0, 1, 2, 3}), f)
    os.utime(stale, (1e9, 1e9))
    # no pre-training, one seed: no drop pair in its scores, no val CIDEr
    # logged, no pre-training stage; all captions true
    finished_run(work, 'no-pretraining', 2,
                 scores_of(12.34, [5.0, 6.0, 7.0, None, 8.0, 99.0]), None,
                 dict(caption=(300, 150), test=(60, 30)), predictions(pairs))
    # the full recipe, one seed: every caption false
    finished_run(work, 'mlm-mvcl-fda', 0,
                 scores_of(55.5, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 60.25,
                 dict(pretrain=(30, 12), caption=(60, 24), test=(30, 12)),
                 predictions(pairs, false_change={0, 1, 2, 3},
                             false_distractor={0, 1, 2, 3}))

    returned = ablation.summarise(work)

    with open(osp.join(work, 'summary.md')) as f:
        table = f.read()
    assert table == returned + '\n'
    lines = table.strip().split('\n')
    header = cells(lines[0])
    assert header == ['row', 'seeds', 'val CIDEr', 'test CIDEr total',
                      *TYPES, 'test captions true %', 'wall min / run',
                      'CPU min / run', 'commits']
    assert len(cells(lines[1])) == len(header)
    rows = [cells(line) for line in lines[2:]]
    # one line per row that has runs, in the tool's row order (not the
    # folders' alphabetical one)
    assert [r[0] for r in rows] == ['no pre-training', 'MLM',
                                    'MLM + MVCL + FDA']
    assert all(len(r) == len(header) for r in rows)
    no_pre, mlm, full = rows
    assert no_pre == ['no pre-training', '2', '-', '12.34', '5.00', '6.00',
                      '7.00', '-', '8.00', '99.00', '100.00',
                      f'{(300 + 60) / 60:.1f}', f'{(150 + 30) / 60:.1f}',
                      'abc1234']
    assert mlm == [
        'MLM', '0,1', two(45.0, 49.0), two(40.0, 46.0), two(50.0, 53.0),
        two(30.0, 34.0), two(20.0, 21.0), two(10.0, 16.0), two(25.0, 27.0),
        two(90.0, 95.0), two(100 * 7 / 8, 100 * 4 / 8),
        f'{(240 + 360) / 2 / 60:.1f}', f'{(120 + 240) / 2 / 60:.1f}',
        'abc1234, def5678']
    assert mlm[2:4] == ['47.00 ± 2.83', '43.00 ± 4.24']
    assert mlm[10] == '68.75 ± 26.52'
    assert full == ['MLM + MVCL + FDA', '0', '60.25', '55.50', '1.00', '2.00',
                    '3.00', '4.00', '5.00', '6.00', '0.00', '2.0', '0.8',
                    'abc1234']

    with open(osp.join(work, 'summary.json')) as f:
        records = json.load(f)
    truth = {(r['row'], r['seed']): r['test_truth'] for r in records}
    assert truth == {('mlm', 0): 87.5, ('mlm', 1): 50.0,
                     ('no-pretraining', 2): 100.0, ('mlm-mvcl-fda', 0): 0.0}


def test_summary_names_a_missing_predictions_file(tmp_path):
    work = str(tmp_path / 'work')
    base = finished_run(work, 'mlm', 0, scores_of(1.0, [1.0] * 6), 1.0,
                        dict(caption=(1, 1), test=(1, 1)), [])
    os.remove(osp.join(base, 'test', 'predictions_20260101_000000.json'))
    with pytest.raises(FileNotFoundError, match=r'seed0/test/predictions_'):
        ablation.summarise(work)


# ------------------------------------------------------------------ run_one


class StageRecorder:
    """Stands in for ``stages.run_command``: keeps each command
    and writes what the real stage leaves in its work dir (checkpoints, the
    validation scalars, test scores and predictions)."""

    SCORES = {'CIDEr': 33.0, 'color/CIDEr': 44.0, 'distractor/CIDEr': 55.0}

    def __init__(self):
        self.calls = []

    def __call__(self, cmd, log=None, threads=None, cwd=None):
        self.calls.append((list(cmd), threads))
        work = cmd[cmd.index('--work-dir') + 1]
        os.makedirs(work, exist_ok=True)
        if cmd[:3] == TRAIN and 'pretrain' in cmd[3]:
            # two epochs' checkpoints, the second newer
            for epoch in (1, 2):
                self._touch(osp.join(work, f'epoch_{epoch}.pth'), 1e9 + epoch)
        elif cmd[:3] == TRAIN:
            self._touch(osp.join(work, 'best_CIDEr_epoch_2.pth'), 1e9 + 2)
            self._touch(osp.join(work, 'epoch_3.pth'), 1e9 + 3)
            # an earlier, interrupted run's log, then this run's: training
            # lines and three validations, the best after epoch 2
            for stamp, lines in (
                    ('20250101_000000', [{'CIDEr': 99.0, 'step': 1}]),
                    ('20260101_000000', [{'loss': 2.0, 'step': 10},
                                         {'CIDEr': 10.0, 'step': 1},
                                         {'loss': 1.0, 'step': 20},
                                         {'CIDEr': 12.5, 'color/CIDEr': 3.0,
                                          'step': 2},
                                         {'CIDEr': 11.0, 'step': 3}])):
                write_scalars(Path(work), stamp, lines)
        else:
            assert cmd[:3] == TEST, cmd
            with open(osp.join(work, 'test_scores.json'), 'w') as f:
                json.dump(self.SCORES, f)
            option = [o for o in cmd if o.startswith('test_evaluator.0.')]
            out_dir = option[0].split('=', 1)[1]
            os.makedirs(out_dir, exist_ok=True)
            with open(osp.join(out_dir, 'predictions_20260101_000000.json'),
                      'w') as f:
                json.dump([], f)
        return 12.34, 5.67

    @staticmethod
    def _touch(path, mtime):
        with open(path, 'wb') as f:
            f.write(b'')
        os.utime(path, (mtime, mtime))


@pytest.mark.parametrize('row', list(ROW_COMMANDS))
def test_run_one_commands_and_resume(tmp_path, monkeypatch, row):
    pre_cfg, cap_cfg, weights = ROW_COMMANDS[row]
    for cfg in (pre_cfg, cap_cfg):
        assert cfg is None or osp.isfile(cfg), cfg
    recorder = StageRecorder()
    monkeypatch.setattr(experiment_stages, 'run_command', recorder)
    monkeypatch.chdir(REPO)  # the checkpoint is recorded relative to it
    work_dir = str(tmp_path / 'work')
    base = osp.join(work_dir, row, 'seed3')
    pre_dir, cap_dir, test_dir = (osp.join(base, s)
                                  for s in ('pretrain', 'caption', 'test'))
    best = osp.join(cap_dir, 'best_CIDEr_epoch_2.pth')

    record = ablation.run_one(row, 3, work_dir, threads=3)

    commands = [cmd for cmd, _ in recorder.calls]
    assert {threads for _, threads in recorder.calls} == {3}
    if pre_cfg is None:
        assert len(commands) == 2
        assert not osp.exists(pre_dir)
        init_from = 'None'
    else:
        assert len(commands) == 3
        pre = commands.pop(0)
        assert pre == [*TRAIN, pre_cfg, '--work-dir', pre_dir,
                       '--cfg-options', 'randomness.seed=3',
                       'model.task_seed=3', *weights]
        init_from = osp.join(pre_dir, 'epoch_2.pth')
    caption, test = commands
    assert caption == [*TRAIN, cap_cfg, '--work-dir', cap_dir,
                       '--cfg-options', 'randomness.seed=3',
                       f'model.init_from={init_from}']
    assert test == [*TEST, cap_cfg, best, '--work-dir',
                    test_dir, '--cfg-options',
                    f'test_evaluator.0.output_dir={test_dir}']

    with open(osp.join(base, 'result.json')) as f:
        result = json.load(f)
    assert result == record
    assert result['row'] == row and result['seed'] == 3
    assert result['test_scores'] == StageRecorder.SCORES
    # the tested checkpoint's (epoch 2) validation, not the last (epoch 3)
    assert result['val_CIDEr'] == 12.5
    assert osp.normpath(osp.join(REPO, result['checkpoint'])) == best
    stages = ['caption', 'test'] if pre_cfg is None else [
        'pretrain', 'caption', 'test']
    assert ('pretrain' in result) == (pre_cfg is not None)
    for name in stages:
        assert result[name]['wall_s'] == 12.3
        assert result[name]['cpu_s'] == 5.7
        assert len(result[name]['loadavg_before']) == 3
        with open(osp.join(base, name, 'DONE')) as f:
            assert json.load(f) == result[name]

    # run again: every stage is done, nothing runs, the times are kept
    again = ablation.run_one(row, 3, work_dir, threads=3)
    assert len(recorder.calls) == len(stages)
    assert {k: again[k] for k in stages} == {k: record[k] for k in stages}

    # an interrupted test stage (no DONE): only the test runs again
    os.remove(osp.join(test_dir, 'DONE'))
    ablation.run_one(row, 3, work_dir, threads=3)
    assert len(recorder.calls) == len(stages) + 1
    assert recorder.calls[-1][0] == test


def test_the_data_is_made_when_absent(tmp_path, monkeypatch):
    """In this process: the quickstart's set (its adaptation config's
    synthetic_data), cache and vocabulary, then the hard negatives when
    absent."""
    from mmidc_lab.experiments import quickstart
    from mmidc_lab.experiments.run_configs import load_config
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(ablation, 'ensure_dataset',
                        lambda *args, **kwargs: calls.append(('data', args,
                                                              kwargs)))
    monkeypatch.setattr(ablation, 'ensure_hard_negatives',
                        lambda root: calls.append(('negatives', root)))
    ablation.prepare_data()
    data, negatives = calls
    assert data == ('data', (ablation.DATA_ROOT, dict(
        num_scenes=3000, seed=0, image_size=(240, 160)), (96, 144),
        ('train', 'val', 'test')), dict(workers=1))
    assert data[1][1] == quickstart.synthetic_data_kwargs(
        load_config(quickstart.ADAPT_CFG))
    assert negatives == ('negatives', ablation.DATA_ROOT)
    root = tmp_path / ablation.DATA_ROOT
    root.mkdir(parents=True)
    (root / 'hard_negatives_train.json').write_text('{}')
    calls.clear()
    ablation.prepare_data()  # the data set, cache and vocabulary checked
    assert [c[0] for c in calls] == ['data']


def test_the_hard_negatives_are_the_tools(tmp_path):
    """ensure_hard_negatives writes what ``make_hard_negatives.py
    --dataset-type CLEVRChangeDataset`` (its defaults) writes."""
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    ours = ablation.ensure_hard_negatives(root)
    assert osp.basename(ours) == 'hard_negatives_train.json'
    theirs = str(tmp_path / 'tool.json')
    load_tool('tools/dataset_converters/make_hard_negatives.py').main(
        ['--dataset-type', 'CLEVRChangeDataset', '--data-root', root,
         '--out', theirs, '--show', '0'])
    with open(ours) as f, open(theirs) as g:
        assert json.load(f) == json.load(g)


def test_seed_by_seed_with_the_table_after_each_run(monkeypatch):
    done = []
    monkeypatch.setattr(ablation, 'prepare_data', lambda: None)
    monkeypatch.setattr(ablation, 'run_one', lambda row, seed, work, threads:
                        done.append((row, seed, threads)))
    monkeypatch.setattr(ablation, 'summarise',
                        lambda work: done.append(work) or '| table |')
    ablation.run_ablation(['mlm', 'no-pretraining'], [0, 1], 'w', threads=2)
    assert done == [('mlm', 0, 2), 'w', ('no-pretraining', 0, 2), 'w',
                    ('mlm', 1, 2), 'w', ('no-pretraining', 1, 2), 'w']
