"""tools/quickstart.py: a finished stage is skipped only for its own config;
the test stages, the val-best checkpoint and the side-by-side table."""
import json

import pytest
from mmengine.config import Config

from tests.helpers import load_tool


@pytest.fixture
def quickstart(monkeypatch):
    module = load_tool('tools/quickstart.py')
    commands = []
    monkeypatch.setattr(module, 'run',
                        lambda cmd, log=None: commands.append(cmd))
    module.commands = commands
    return module


MODEL = "model = dict(type='Captioner', head=dict(word_prior=True))\n"


def _finished_stage(path, config_name, dumped=MODEL):
    path.mkdir()
    (path / 'DONE').write_text('1 s\n')
    # MMEngine's dump of the config, with the option the quickstart passes
    (path / config_name).write_text(
        dumped + "model['init_backbone_from'] = 'adapt/best.pth'\n")
    return str(path)


def _config(tmp_path, name='caption.py', text=MODEL):
    (tmp_path / 'configs').mkdir(exist_ok=True)
    path = tmp_path / 'configs' / name
    path.write_text(text)
    return str(path)


def test_finished_stage_of_the_same_config_is_skipped(quickstart, tmp_path):
    work_dir = _finished_stage(tmp_path / 'caption', 'caption.py')
    quickstart.train_stage('captioning', _config(tmp_path), work_dir)
    assert quickstart.commands == []


def test_finished_stage_of_an_earlier_config_version_stops_the_run(
        quickstart, tmp_path):
    work_dir = _finished_stage(
        tmp_path / 'caption', 'caption.py',
        dumped="model = dict(type='Captioner', head=dict())\n")
    with pytest.raises(SystemExit, match='earlier version of .*caption.py'):
        quickstart.train_stage('captioning', _config(tmp_path), work_dir)
    assert quickstart.commands == []


def test_finished_stage_of_another_config_stops_the_run(quickstart, tmp_path):
    work_dir = _finished_stage(tmp_path / 'caption', 'caption.py')
    with pytest.raises(SystemExit, match='another config .*caption_10e.py'):
        quickstart.train_stage('captioning', 'configs/x/caption_10e.py',
                               work_dir)
    assert quickstart.commands == []


def test_unfinished_stage_runs_and_resumes(quickstart, tmp_path):
    work_dir = tmp_path / 'caption'
    work_dir.mkdir()
    (work_dir / 'last_checkpoint').write_text('epoch_1.pth')
    quickstart.train_stage('captioning', 'configs/x/caption.py',
                           str(work_dir), extra=('--cfg-options', 'a=1'))
    (cmd, ) = quickstart.commands
    assert cmd[1:3] == ['tools/train.py', 'configs/x/caption.py']
    assert cmd[-1] == '--resume' and '--cfg-options' in cmd
    assert (work_dir / 'DONE').is_file()


def test_test_stage_runs_once_per_checkpoint(quickstart, tmp_path,
                                             monkeypatch):
    work_dir = tmp_path / 'test_shifted'
    scores = {'CIDEr': 80.0, 'truth/total': 50.0}
    records = [dict(pair_id='000001.png', prediction='x', references=['y'],
                    change_type='add')]

    def fake_test_run(cmd, log=None):  # what tools/test.py leaves
        quickstart.commands.append(cmd)
        (work_dir / 'test_scores.json').write_text(json.dumps(scores))
        (work_dir / 'predictions_20260101_000000.json').write_text(
            json.dumps(records))

    monkeypatch.setattr(quickstart, 'run', fake_test_run)
    for checkpoint in ('a.pth', 'a.pth', 'b.pth'):
        result = quickstart.test_stage(
            'shifted', quickstart.CAPTION_CFG, ['model.decode_cfg.strategy='
                                                'greedy'], checkpoint,
            str(work_dir), quickstart.SHIFTED_DATASET_CFG)
        assert result[:2] == (scores, records)
    assert [c[-3] for c in quickstart.commands] == ['a.pth', 'b.pth']
    # the composed config: the shifted set's loader and evaluators, the
    # predictions saved next to the scores
    cfg = Config.fromfile(quickstart.commands[0][2])
    assert cfg.test_dataloader.dataset.data_root == quickstart.SHIFTED_ROOT
    assert cfg.test_dataloader.dataset.split == 'test'
    assert cfg.val_dataloader.dataset.data_root == quickstart.DATA_ROOT
    assert [e['type'] for e in cfg.test_evaluator] == ['IDCMetric',
                                                       'CaptionTruthMetric']
    assert cfg.test_evaluator[0]['output_dir'] == str(work_dir)
    assert cfg.test_evaluator[1]['data_root'] == quickstart.SHIFTED_ROOT
    # the model (and its vocabulary) is the captioning config's
    assert cfg.model.head.vocab == quickstart.DATA_ROOT + '/caption_vocab_train.json'
    assert cfg.model.decode_cfg.strategy == 'greedy'


def test_test_config_adds_caption_truth(quickstart, tmp_path):
    path = _config(tmp_path, text=MODEL + (
        "test_dataloader = dict(dataset=dict(data_root='data/x'))\n"
        "test_evaluator = dict(type='IDCMetric')\n"))
    cfg = Config.fromfile(quickstart.test_config(path, [], str(tmp_path)))
    assert cfg.test_evaluator == [
        dict(type='IDCMetric', output_dir=str(tmp_path)),
        dict(type='CaptionTruthMetric', data_root='data/x')]
    cfg = Config.fromfile(quickstart.test_config(path, [], str(tmp_path),
                                                 truth=False))
    assert len(cfg.test_evaluator) == 1


def test_val_best_checkpoint_by_key(quickstart, tmp_path):
    for name in ('best_CIDEr_epoch_2.pth', 'best_truth_total_epoch_3.pth',
                 'epoch_5.pth'):
        (tmp_path / name).write_text('')
    key = quickstart.save_best_key(
        quickstart.CAPTION_CFG,
        ['default_hooks.checkpoint.save_best=truth/total'])
    assert key == 'truth/total'
    assert quickstart.best_checkpoint(str(tmp_path), key).endswith(
        'best_truth_total_epoch_3.pth')
    assert quickstart.best_checkpoint(str(tmp_path), 'CIDEr').endswith(
        'best_CIDEr_epoch_2.pth')
    with pytest.raises(FileNotFoundError, match='best_rsum_'):
        quickstart.best_checkpoint(str(tmp_path), 'rsum')
    assert quickstart.save_best_key(quickstart.ADAPT_CFG) == 'rsum'


def test_options_change_the_checked_model_settings(quickstart, tmp_path):
    """A finished stage trained with an option is skipped with it and
    refused without it."""
    option = 'model.head.word_prior=False'
    work_dir = _finished_stage(
        tmp_path / 'caption', 'caption.py',
        dumped="model = dict(type='Captioner', head=dict(word_prior=False))"
        "\n")
    quickstart.train_stage('captioning', _config(tmp_path), work_dir,
                           options=[option])
    with pytest.raises(SystemExit, match='earlier version'):
        quickstart.train_stage('captioning', _config(tmp_path), work_dir)
    assert quickstart.commands == []
    assert quickstart.parse_options(['a.b=1', 'c=[1,2]', 'd=truth/total']) \
        == {'a.b': 1, 'c': [1, 2], 'd': 'truth/total'}


def test_side_by_side_table(quickstart):
    table = quickstart.format_side_by_side({
        'test': {'CIDEr': 115.0, 'Bleu_4': 48.0, 'color/CIDEr': 60.0,
                 'color/Bleu_4': 15.0, 'truth/total': 59.5,
                 'truth/type/total': 90.0},
        'shifted test': {'CIDEr': 80.25, 'Bleu_4': 30.0,
                         'truth/total': 40.0}})
    lines = table.splitlines()
    assert lines[0].split() == ['score', 'test', 'shifted', 'test']
    assert lines[1].split() == ['total/CIDEr', '115.00', '80.25']
    assert ['color/CIDEr', '60.00', '-'] in [line.split() for line in lines]
    assert lines[-1].split() == ['total/true', '%', '59.50', '40.00']
    assert not any('Bleu_4' in line and 'color' in line for line in lines)
    assert not any('type' in line for line in lines)
