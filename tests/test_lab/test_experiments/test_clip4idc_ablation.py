"""mmidc_lab.experiments.clip4idc_ablation: rows, summaries, the markdown
report, resuming, and that every built-in row's options build the tiny
models."""
import copy
import json
import math
import os.path as osp

import pytest
import torch
from mmengine.registry import init_default_scope

from mmidc_lab.experiments import ExperimentError
from mmidc_lab.experiments import clip4idc_ablation as ablations
from mmidc_lab.experiments.quickstart import ADAPT_CFG
from mmidc_lab.experiments.run_configs import load_config
from mmidc.registry import MODELS
from tests.helpers import REPO
from tests.helpers.run_logs import write_scalars


def _result(row, seed, cider, wall=60.0, adapt=None, truth=50.0):
    scores = {'CIDEr': cider, 'color/CIDEr': cider / 2,
              'truth/total': truth, 'val/CIDEr': cider + 1}
    if adapt is not None:
        scores.update({'adapt/p2t/R@1': adapt, 'adapt/t2p/R@1': adapt / 2})
    return dict(row=row, seed=seed, scores=scores, wall_s=wall)


def test_summary_and_report():
    rows = [dict(name='recipe', label='(a) recipe', adapt=True),
            dict(name='no-adapt', label='(b) no adaptation', adapt=False,
                 caption_options=('model.x=1', )),
            dict(name='never-run', label='(z) not run', adapt=False)]
    results = [_result('no-adapt', 1, 100.0, wall=120.0),
               _result('recipe', 2, 120.0, adapt=30.0, truth=70.0),
               _result('recipe', 0, 110.0, adapt=20.0, truth=60.0),
               _result('no-adapt', 0, 90.0, wall=60.0)]
    summary = ablations.summarize(rows, results)
    assert [s['row'] for s in summary] == ['recipe', 'no-adapt']
    recipe, no_adapt = summary
    assert recipe['seeds'] == [0, 2]
    assert recipe['stats']['CIDEr'] == (115.0,
                                        pytest.approx(math.sqrt(50)))
    assert recipe['stats']['adapt/p2t/R@1'][0] == 25.0
    assert no_adapt['stats']['adapt/p2t/R@1'] == (None, None)
    assert no_adapt['stats']['move/CIDEr'] == (None, None)

    meta = dict(select='CIDEr', adapt_options=['train_cfg.val_interval=1'],
                caption_options=['train_cfg.val_interval=1'],
                machine='nproc 2, AMD EPYC', commit='abc1234',
                command='python -m mmidc_lab.ablations --seeds 0',
                written='2026-01-01T00:00:00')
    report = ablations.format_report(rows, results, meta)
    lines = report.splitlines()
    header = next(line for line in lines if line.startswith('| row | seeds'))
    columns = [c.strip() for c in header.strip('|').split('|')]
    assert columns[:5] == ['row', 'seeds', 'val CIDEr-D', 'val true %',
                           'CIDEr-D']
    assert columns[-1] == 'wall / run'

    def cells(prefix):
        line = next(line for line in lines if line.startswith(prefix))
        return dict(zip(columns, [c.strip() for c in
                                  line.strip('|').split('|')]))

    a = cells('| (a) recipe')
    assert a['seeds'] == '0 2'
    assert a['CIDEr-D'] == f'115.00 ± {math.sqrt(50):.2f}'
    assert a['val CIDEr-D'] == f'116.00 ± {math.sqrt(50):.2f}'
    assert a['val true %'] == '-'
    assert a['color'] == f'57.50 ± {math.sqrt(50) / 2:.2f}'
    assert a['true %'] == f'65.00 ± {math.sqrt(50):.2f}'
    assert a['R@1 p2t'] == f'25.00 ± {math.sqrt(50):.2f}'
    assert a['move'] == '-'
    assert a['wall / run'] == '1.0 min'
    b = cells('| (b) no adaptation')
    assert b['CIDEr-D'] == f'95.00 ± {math.sqrt(50):.2f}'
    assert b['R@1 p2t'] == '-' and b['wall / run'] == '1.5 min'
    assert '(z) not run' not in report
    # every run, in row order then seed order
    section = lines[lines.index('## Every run'):lines.index('## Rows')]
    runs = [line.split('|')[1:3] for line in section
            if line.startswith('| recipe |') or line.startswith(
                '| no-adapt |')]
    assert [(r.strip(), s.strip()) for r, s in runs] == [
        ('recipe', '0'), ('recipe', '2'), ('no-adapt', '0'),
        ('no-adapt', '1')]
    assert '| no-adapt | no | - | `model.x=1` |' in report
    for text in ('nproc 2, AMD EPYC', 'abc1234',
                 '`python -m mmidc_lab.ablations --seeds 0`', '4 runs, 5.0 min'):
        assert text in report


def test_rows_and_specs(tmp_path):
    rows = ablations.load_rows()
    assert [r['name'] for r in rows] == ['recipe', 'no-adapt', 'clip-ft',
                                         'split-2-2', 'split-4-0']
    spec = tmp_path / 'rows.py'
    spec.write_text("rows = [dict(name='a', label='A', adapt=False,\n"
                    "             caption_options=['model.x=1'])]\n")
    assert ablations.load_rows(str(spec)) == [
        dict(name='a', label='A', adapt=False, caption_options=['model.x=1'])]
    spec.write_text("rows = [dict(name='a', label='A', adapt=False, "
                    "caption_option=['x=1'])]\n")
    with pytest.raises(ValueError, match="unknown keys.*caption_option"):
        ablations.load_rows(str(spec))
    spec.write_text("rows = [dict(name='a', label='A', adapt=False)] * 2\n")
    with pytest.raises(ValueError, match="two rows named 'a'"):
        ablations.load_rows(str(spec))
    spec.write_text("rows = [dict(name='a', adapt=False)]\n")
    with pytest.raises(ValueError, match="no 'label'"):
        ablations.load_rows(str(spec))


def test_run_options_and_resuming(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)  # the lab runs from a clone's root
    options = dict(select='truth/total',
                   caption_options=['train_cfg.max_epochs=1'])
    row = next(r for r in ablations.ROWS if r['name'] == 'split-2-2')
    plan = ablations.run_options(row, 3, **options)
    # the config as runs have recorded it (relative to the clone's root), so
    # that their result.json still matches the row
    assert plan['adapt']['config'] == (
        'projects/from_scratch/configs/'
        'clip4idc-adapt_tiny_synthetic-clevr-change.py')
    assert osp.samefile(plan['adapt']['config'], ADAPT_CFG)
    assert plan['adapt']['options'] == [
        'train_cfg.val_interval=1', 'model.backbone.num_inter_layers=2',
        'randomness.seed=3']
    assert plan['caption']['options'] == [
        'train_cfg.val_interval=1', 'model.backbone.num_inter_layers=2',
        'train_cfg.max_epochs=1', 'randomness.seed=3',
        'default_hooks.checkpoint.save_best=truth/total']
    no_adapt = next(r for r in ablations.ROWS if r['name'] == 'no-adapt')
    plan_no_adapt = ablations.run_options(no_adapt, 0, **options)
    assert plan_no_adapt['adapt'] is None
    assert 'model.init_backbone_from=None' in plan_no_adapt['caption'][
        'options']

    assert ablations.finished_result(str(tmp_path), plan) is None
    recorded = dict(_result('split-2-2', 3, 100.0),
                    plan=json.loads(json.dumps(plan)))
    (tmp_path / 'result.json').write_text(json.dumps(recorded))
    assert ablations.finished_result(str(tmp_path), plan) == recorded
    other = copy.deepcopy(plan)
    other['caption']['options'][-1] = 'default_hooks.checkpoint.save_best=CIDEr'
    with pytest.raises(ExperimentError, match='other settings'):
        ablations.finished_result(str(tmp_path), other)


def test_val_columns_read_the_tested_epoch(tmp_path):
    caption = tmp_path / 'caption'
    write_scalars(caption, '20260101_000000', [
        dict(loss=3.0, step=3),
        dict(CIDEr=95.0, **{'truth/total': 50.0, 'Bleu_4': 40.0}, step=3),
        dict(CIDEr=91.0, step=4)])
    best = str(caption / 'best_CIDEr_epoch_3.pth')
    assert ablations.selected_val_scores(str(caption), best) == {
        'val/CIDEr': 95.0, 'val/truth/total': 50.0}
    assert ablations.selected_val_scores(
        str(caption), str(caption / 'epoch_4.pth')) == {'val/CIDEr': 91.0}
    # a result recorded without the val columns gets them when read
    plan = dict(adapt=None, caption=dict(config='c.py', options=['a=1']))
    recorded = dict(row='r', seed=0, plan=plan, checkpoint=best,
                    scores={'CIDEr': 100.0}, wall_s=1.0)
    (tmp_path / 'result.json').write_text(json.dumps(recorded))
    assert ablations.finished_result(str(tmp_path), plan)['scores'] == {
        'CIDEr': 100.0, 'val/CIDEr': 95.0, 'val/truth/total': 50.0}


def _tiny_batch():
    from mmpretrain.structures import DataSample

    from mmidc.text import clip_tokenizer
    captions = ['the red cube moved', 'there is no change']
    tokens = clip_tokenizer()(captions, context_length=32)  # [2, 32]
    inputs = [torch.randint(0, 256, (2, 3, 96, 144), dtype=torch.uint8)
              for _ in captions]
    samples = []
    for i, t in enumerate(tokens):
        sample = DataSample(metainfo=dict(pair_id=str(i),
                                          gt_captions=[captions[i]]))
        sample.set_field(t, 'text_tokens')
        sample.set_field(t[None], 'ref_tokens')  # [K=1, 32]
        samples.append(sample)
    return dict(inputs=inputs, data_samples=samples), captions


@pytest.mark.parametrize('stage', ['adapt', 'caption'])
def test_every_row_builds_and_trains_a_step(stage, one_thread):
    """The rows' options fit today's model classes (a renamed key fails
    here, not hours into an ablation)."""
    init_default_scope('mmidc')
    batch, captions = _tiny_batch()
    for row in ablations.ROWS:
        plan = ablations.run_options(row, 0)[stage]
        if plan is None:
            continue
        cfg = load_config(plan['config'], plan['options'])
        model_cfg = cfg.model.to_dict()
        if 'init_backbone_from' in model_cfg:  # no adaptation run here
            model_cfg['init_backbone_from'] = None
        if 'vocab' in model_cfg.get('head', {}):
            model_cfg['head']['vocab'] = captions  # no data set needed
        model = MODELS.build(model_cfg)
        losses = model(**model.data_preprocessor(batch, True), mode='loss')
        loss = sum(v for k, v in losses.items() if 'loss' in k)
        assert torch.isfinite(loss), (row['name'], stage)


def test_report_names_each_runs_commit_and_the_specs_title(tmp_path):
    rows = [dict(name='recipe', label='(a) recipe', adapt=False)]
    results = [dict(_result('recipe', 0, 110.0), commit='1111111'),
               _result('recipe', 1, 120.0)]  # a run of an older tool
    meta = dict(select='CIDEr', adapt_options=[], caption_options=[],
                machine='m', commit='2222222', command='c', written='w',
                title=ablations.load_title(None))
    report = ablations.format_report(rows, results, meta)
    assert report.startswith(f'# {ablations.DEFAULT_TITLE}\n')
    runs = [line for line in report.splitlines()
            if line.startswith('| recipe |')]
    assert runs[0].endswith('| 1111111 |')
    assert runs[1].endswith('| not recorded |')
    assert 'this page written at 2222222' in report

    spec = tmp_path / 'my_rows.py'
    spec.write_text("rows = [dict(name='a', label='A', adapt=False)]\n")
    assert ablations.load_title(str(spec)) == (
        f'{ablations.DEFAULT_TITLE}: my_rows')
    spec.write_text("title = 'Options'\n"
                    "rows = [dict(name='a', label='A', adapt=False)]\n")
    assert ablations.load_title(str(spec)) == 'Options'
    shipped = ablations.load_title(
        str(REPO / 'mmidc_lab/ablation_specs/from_scratch_options.py'))
    assert shipped != ablations.DEFAULT_TITLE


def test_report_names_what_the_spec_trains(tmp_path):
    spec = tmp_path / 'rows.py'
    spec.write_text("rows = [dict(name='a', label='A', adapt=False)]\n")
    assert ablations.load_subject(None) == ablations.load_subject(
        str(spec)) == ablations.DEFAULT_SUBJECT
    spec.write_text("subject = 'The big model'\n"
                    "rows = [dict(name='a', label='A', adapt=False)]\n")
    meta = dict(select='CIDEr', adapt_options=[], caption_options=[],
                machine='m', commit='c', command='c', written='w',
                subject=ablations.load_subject(str(spec)))
    report = ablations.format_report(
        [dict(name='a', label='A', adapt=False)], [_result('a', 0, 1.0)], meta)
    assert 'The big model on the synthetic' in report
    assert ablations.DEFAULT_SUBJECT not in report


def test_a_run_records_the_commit_it_trained_with(tmp_path, monkeypatch):
    """train_and_test writes its own commit into result.json, taken when
    the run starts (not when a later --dry-run rewrites the table)."""
    commits = iter(['run-commit', 'later-commit'])
    monkeypatch.setattr(ablations, 'commit_info',
                        lambda table=None: next(commits))
    stages = []
    monkeypatch.setattr(ablations, 'train_stage',
                        lambda name, *args, **kwargs: stages.append(name))
    monkeypatch.setattr(ablations, 'best_checkpoint',
                        lambda work_dir, key: f'{work_dir}/best_{key}.pth')
    tests = []

    def test_stage(name, config, options, checkpoint, work_dir,
                   dataset_config=None, **kwargs):
        tests.append((name, work_dir, dataset_config))
        return {'CIDEr': 100.0 - 10 * bool(dataset_config)}, None, None

    monkeypatch.setattr(ablations, 'test_stage', test_stage)
    monkeypatch.setattr(ablations, 'selected_val_scores', lambda *a: {})
    run_dir = tmp_path / 'run'
    run_dir.mkdir()
    row = dict(name='no-adapt', label='B', adapt=False)
    plan = ablations.run_options(row, 0)
    result = ablations.train_and_test(row, 0, plan, str(run_dir),
                                      page=str(tmp_path / 'page.md'))
    assert stages == ['no-adapt seed 0: captioning']
    # the test split, then the shifted set's, each in its own folder
    assert tests == [
        ('no-adapt seed 0: captioning, test split', f'{run_dir}/test', None),
        ('no-adapt seed 0: captioning, shifted test split',
         f'{run_dir}/test_shifted', ablations.SHIFTED_DATASET_CFG)]
    assert result['scores'] == {'CIDEr': 100.0, 'shifted/CIDEr': 90.0}
    assert result['commit'] == 'run-commit'
    assert result['checkpoint'] == f'{run_dir}/caption/best_CIDEr.pth'
    assert json.loads((run_dir / 'result.json').read_text()) == result
    # without the shifted set: the test split alone
    tests.clear()
    result = ablations.train_and_test(row, 0, plan, str(run_dir),
                                      shifted=False)
    assert [t[1] for t in tests] == [f'{run_dir}/test']
    assert result['scores'] == {'CIDEr': 100.0}


def test_runs_skip_the_finished_and_the_page_follows(tmp_path, monkeypatch):
    row = dict(name='recipe', label='(a) recipe', adapt=True)
    work, page = tmp_path / 'work', str(tmp_path / 'docs' / 'page.md')
    done = work / 'recipe' / 'seed0'
    done.mkdir(parents=True)
    (done / 'result.json').write_text(json.dumps(dict(
        _result('recipe', 0, 110.0), plan=ablations.run_options(row, 0))))
    meta = dict(select='CIDEr', adapt_options=[], caption_options=[],
                commit='abc', command='c', title='T')
    # a dry run: the finished run's page, nothing trained
    results = ablations.run_ablations([row], [0, 1], str(work), page, meta,
                                      dry_run=True)
    assert [r['seed'] for r in results] == [0]
    assert open(page).read().startswith('# T\n')
    made = []
    monkeypatch.setattr(ablations, 'ensure_dataset',
                        lambda *args: made.append(args[0]))
    monkeypatch.setattr(ablations, 'train_and_test', lambda row, seed, plan,
                        run_dir, select, page, shifted: _result('recipe', seed,
                                                                90.0))
    results = ablations.run_ablations([row], [0, 1], str(work), page, meta)
    assert made == ['data/synthetic_clevr_change',
                    'data/synthetic_clevr_change_shifted']
    assert [r['seed'] for r in results] == [0, 1]
    assert '| (a) recipe | 0 1 |' in open(page).read()


def test_a_run_of_other_settings_stops_before_the_page_is_written(tmp_path):
    rows = [dict(name='recipe', label='(a) recipe', adapt=True),
            dict(name='no-adapt', label='(b) no adaptation', adapt=False)]
    work, page = tmp_path / 'work', tmp_path / 'page.md'
    for row, plan_row in ((rows[0], rows[0]), (rows[1], rows[0])):
        done = work / row['name'] / 'seed0'
        done.mkdir(parents=True)
        (done / 'result.json').write_text(json.dumps(dict(
            _result(row['name'], 0, 110.0),
            plan=ablations.run_options(plan_row, 0))))
    page.write_text('the full page\n')
    meta = dict(select='CIDEr', adapt_options=[], caption_options=[],
                commit='abc', command='c', title='T')
    with pytest.raises(ExperimentError,
                       match='no-adapt/seed0.*other settings'):
        ablations.run_ablations(rows, [0], str(work), str(page), meta,
                                dry_run=True)
    assert page.read_text() == 'the full page\n'


def test_a_page_keeps_its_hand_written_end(tmp_path):
    page = tmp_path / 'docs' / 'page.md'
    ablations.write_page(str(page), '# T\n\ntable 1\n')
    assert page.read_text() == '# T\n\ntable 1\n'
    page.write_text(page.read_text() + '\n' + ablations.KEEP_MARKER
                    + '\n\n## Notes\n\nby hand\n')
    ablations.write_page(str(page), '# T\n\ntable 2\n')
    assert page.read_text() == ('# T\n\ntable 2\n\n' + ablations.KEEP_MARKER
                                + '\n\n## Notes\n\nby hand\n')
    assert not (tmp_path / 'docs' / 'page.md.tmp').exists()


def test_report_has_retrieval_at_5_the_shifted_set_and_every_type(tmp_path):
    """R@5 both ways and the shifted set in the summary; CIDEr-D and truth
    of every change type, test and shifted, in the per-type table."""
    def run(seed, offset):
        scores = {'CIDEr': 100.0 + offset, 'adapt/p2t/R@5': 10.0 + offset,
                  'adapt/t2p/R@5': 20.0 + offset,
                  'shifted/CIDEr': 80.0 + offset,
                  'shifted/truth/total': 40.0 + offset}
        for i, kind in enumerate(ablations.CHANGE_TYPES):
            scores[f'{kind}/CIDEr'] = 50.0 + i + offset
            scores[f'truth/{kind}'] = 30.0 + i + offset
            scores[f'shifted/{kind}/CIDEr'] = 40.0 + i + offset
        return dict(row='a', seed=seed, scores=scores, wall_s=60.0)

    rows = [dict(name='a', label='(a) A', adapt=True)]
    meta = dict(select='CIDEr', adapt_options=[], caption_options=[],
                machine='m', commit='c', command='cmd', written='w')
    report = ablations.format_report(rows, [run(0, 0.0), run(1, 2.0)], meta)
    lines = report.splitlines()
    header = next(line for line in lines if line.startswith('| row | seeds'))
    columns = [c.strip() for c in header.strip('|').split('|')]
    line = next(line for line in lines if line.startswith('| (a) A | 0 1'))
    cells = dict(zip(columns, [c.strip() for c in line.strip('|').split('|')]))
    sd = f'{math.sqrt(2):.2f}'
    assert cells['R@5 p2t'] == f'11.00 ± {sd}'
    assert cells['R@5 t2p'] == f'21.00 ± {sd}'
    assert cells['shifted CIDEr-D'] == f'81.00 ± {sd}'
    assert cells['shifted true %'] == f'41.00 ± {sd}'
    section = lines[lines.index('## Per change type'):
                    lines.index('## Every run')]
    type_header = next(x for x in section if x.startswith('| row | set'))
    type_columns = [c.strip() for c in type_header.strip('|').split('|')]
    assert type_columns == (
        ['row', 'set'] + [f'{t} CIDEr-D' for t in ablations.CHANGE_TYPES]
        + [f'{t} true %' for t in ablations.CHANGE_TYPES])

    def type_cells(name):
        found = next(x for x in section if x.startswith(f'| (a) A | {name} |'))
        return dict(zip(type_columns,
                        [c.strip() for c in found.strip('|').split('|')]))

    test, shifted = type_cells('test'), type_cells('shifted')
    assert test['move CIDEr-D'] == f'55.00 ± {sd}'
    assert test['distractor true %'] == f'36.00 ± {sd}'
    assert shifted['color CIDEr-D'] == f'41.00 ± {sd}'
    # no per-type truth was recorded on the shifted set
    assert shifted['color true %'] == '-'
