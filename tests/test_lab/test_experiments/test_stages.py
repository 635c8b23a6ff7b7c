"""mmidc_lab.experiments.stages: a finished stage is skipped only for its own
config, an interrupted one resumes, a test stage runs once per checkpoint,
timed stages keep their times in DONE, and commands report their time and
failures."""
import json
import os
import sys

import pytest
from mmengine.config import Config

from mmidc.runtime.data_root import apply_data_root
from mmidc_lab.experiments import ExperimentError, stages
from mmidc_lab.experiments.quickstart import (CAPTION_CFG, DATA_ROOT,
                                              SHIFTED_DATASET_CFG,
                                              SHIFTED_ROOT)
from tests.helpers import load_tool
from tests.helpers.pair_trees import make_clevr_change_tree


@pytest.fixture
def commands(monkeypatch):
    """The commands the stages run (none of them really runs)."""
    found = []

    def record(cmd, log=None, threads=None, cwd=None):
        found.append(list(cmd))
        return 12.34, 5.67

    monkeypatch.setattr(stages, 'run_command', record)
    return found


MODEL = "model = dict(type='Captioner', head=dict(word_prior=True))\n"


def _finished_stage(path, config_name, dumped=MODEL):
    path.mkdir()
    (path / 'DONE').write_text('1 s\n')
    # MMEngine's dump of the config, with the option the pipeline passes
    (path / config_name).write_text(
        dumped + "model['init_backbone_from'] = 'adapt/best.pth'\n")
    return str(path)


def _config(tmp_path, name='caption.py', text=MODEL):
    (tmp_path / 'configs').mkdir(exist_ok=True)
    path = tmp_path / 'configs' / name
    path.write_text(text)
    return str(path)


def test_finished_stage_of_the_same_config_is_skipped(commands, tmp_path):
    work_dir = _finished_stage(tmp_path / 'caption', 'caption.py')
    stages.train_stage('captioning', _config(tmp_path), work_dir)
    assert commands == []


def test_finished_stage_of_an_earlier_config_version_stops_the_run(
        commands, tmp_path):
    work_dir = _finished_stage(
        tmp_path / 'caption', 'caption.py',
        dumped="model = dict(type='Captioner', head=dict())\n")
    with pytest.raises(ExperimentError,
                       match='earlier version of .*caption.py'):
        stages.train_stage('captioning', _config(tmp_path), work_dir)
    assert commands == []


def test_finished_stage_of_another_config_stops_the_run(commands, tmp_path):
    work_dir = _finished_stage(tmp_path / 'caption', 'caption.py')
    with pytest.raises(ExperimentError, match='another config .*caption_10e.py'):
        stages.train_stage('captioning', 'configs/x/caption_10e.py', work_dir)
    assert commands == []


def test_options_change_the_checked_model_settings(commands, tmp_path):
    """A finished stage trained with an option is skipped with it and
    refused without it."""
    work_dir = _finished_stage(
        tmp_path / 'caption', 'caption.py',
        dumped="model = dict(type='Captioner', head=dict(word_prior=False))"
        "\n")
    stages.train_stage('captioning', _config(tmp_path), work_dir,
                       options=['model.head.word_prior=False'])
    with pytest.raises(ExperimentError, match='earlier version'):
        stages.train_stage('captioning', _config(tmp_path), work_dir)
    assert commands == []


def test_unfinished_stage_runs_and_resumes(commands, tmp_path):
    work_dir = tmp_path / 'caption'
    work_dir.mkdir()
    (work_dir / 'last_checkpoint').write_text('epoch_1.pth')
    stages.train_stage('captioning', 'configs/x/caption.py', str(work_dir),
                       extra=('--cfg-options', 'a=1'), options=['b=2'])
    (cmd, ) = commands
    assert cmd == [sys.executable, '-m', 'mmidc.cli.train',
                   'configs/x/caption.py', '--work-dir', str(work_dir),
                   '--cfg-options', 'a=1', '--cfg-options', 'b=2', '--resume']
    assert (work_dir / 'DONE').read_text() == '12 s\n'


def test_test_stage_runs_once_per_checkpoint(commands, tmp_path,
                                             monkeypatch):
    work_dir = tmp_path / 'test_shifted'
    scores = {'CIDEr': 80.0, 'truth/total': 50.0}
    records = [dict(pair_id='000001.png', prediction='x', references=['y'],
                    change_type='add')]

    def fake_test_run(cmd, log=None, threads=None, cwd=None):
        commands.append(cmd)  # and what the test command leaves
        (work_dir / 'test_scores.json').write_text(json.dumps(scores))
        (work_dir / 'predictions_20260101_000000.json').write_text(
            json.dumps(records))
        return 1.0, 1.0

    monkeypatch.setattr(stages, 'run_command', fake_test_run)
    for checkpoint in ('a.pth', 'a.pth', 'b.pth'):
        result = stages.test_stage(
            'shifted', CAPTION_CFG, ['model.decode_cfg.strategy=greedy'],
            checkpoint, str(work_dir), SHIFTED_DATASET_CFG)
        assert result[:2] == (scores, records)
    assert [c[:3] for c in commands] == [[sys.executable, '-m',
                                          'mmidc.cli.test']] * 2
    assert [c[-3] for c in commands] == ['a.pth', 'b.pth']
    assert (work_dir / 'DONE').read_text() == 'b.pth\n'
    # the composed config: the shifted set's loader and evaluators, the
    # predictions saved next to the scores
    cfg = Config.fromfile(commands[0][3])
    apply_data_root(cfg, commands[0][3])  # as mmidc.cli.test does
    assert cfg.test_dataloader.dataset.data_root == SHIFTED_ROOT
    assert cfg.test_dataloader.dataset.split == 'test'
    assert cfg.val_dataloader.dataset.data_root == DATA_ROOT
    assert [e['type'] for e in cfg.test_evaluator] == ['IDCMetric',
                                                       'CaptionTruthMetric']
    assert cfg.test_evaluator[0]['output_dir'] == str(work_dir)
    assert cfg.test_evaluator[1]['data_root'] == SHIFTED_ROOT
    # the model (and its vocabulary) is the captioning config's
    assert cfg.model.head.vocab == DATA_ROOT + '/caption_vocab_train.json'
    assert cfg.model.decode_cfg.strategy == 'greedy'


def test_a_retrieval_test_has_no_records(tmp_path):
    (tmp_path / 'test_scores.json').write_text('{"rsum": 3.0}')
    assert stages.load_test_results(str(tmp_path)) == ({'rsum': 3.0}, None,
                                                       None)


def test_timed_stage_keeps_its_times(commands, tmp_path):
    work_dir = tmp_path / 'caption'
    work_dir.mkdir()
    record = {}
    stages.timed_stage('caption', str(work_dir), ['cmd'], 1, record)
    assert commands == [['cmd']]
    times = record['caption']
    assert (times['wall_s'], times['cpu_s']) == (12.3, 5.7)
    assert len(times['loadavg_before']) == len(times['loadavg_after']) == 3
    assert json.loads((work_dir / 'DONE').read_text()) == times
    again = {}
    stages.timed_stage('caption', str(work_dir), ['cmd'], 1, again)
    assert again == record and len(commands) == 1


def test_run_command_times_threads_log_and_failure(tmp_path):
    log = str(tmp_path / 'logs' / 'run.log')
    script = ('import os; print(os.environ["OMP_NUM_THREADS"]); '
              'sum(range(10**6))')
    wall, cpu = stages.run_command([sys.executable, '-c', script], log=log,
                                   threads=3, cwd=str(tmp_path))
    assert wall > 0 and cpu > 0
    with open(log) as f:
        assert f.read() == '3\n'
    with pytest.raises(ExperimentError, match=f'exit 2.*{log}'):
        stages.run_command([sys.executable, '-c', 'exit(2)'], log=log)
    with pytest.raises(ExperimentError, match='exit 1.*the command'):
        stages.run_command([sys.executable, '-c', 'exit(1)'])
    assert os.path.isfile(log)


def test_the_image_cache_is_built_in_process_then_checked(tmp_path):
    """build_image_cache: the cache the configs read
    (``<root>/cache_<H>x<W>``, one shard per split), built by this process
    byte for byte as ``build_resized_cache.py --dataset-type`` builds it; a
    second call keeps it."""
    import shutil
    root, theirs = str(tmp_path / 'clevr'), str(tmp_path / 'tool')
    make_clevr_change_tree(root)
    shutil.copytree(root, theirs)
    stages.build_image_cache(root, ('train', 'test'), (8, 12), workers=0)
    load_tool('tools/dataset_converters/build_resized_cache.py').main(
        ['--dataset-type', 'CLEVRChangeDataset', '--data-root', theirs,
         '--splits', 'train', 'test', '--size', '8', '12', '--workers', '0'])
    cache = tmp_path / 'clevr' / 'cache_8x12'
    names = sorted(p.name for p in cache.iterdir())
    assert names == ['test.json', 'test.npy', 'train.json', 'train.npy']
    for name in names:
        assert (cache / name).read_bytes() == (
            tmp_path / 'tool' / 'cache_8x12' / name).read_bytes(), name
    built = {p.name: p.stat().st_mtime_ns for p in cache.iterdir()}
    stages.build_image_cache(root, ('train', ), (8, 12), workers=0)
    assert {p.name: p.stat().st_mtime_ns for p in cache.iterdir()} == built
