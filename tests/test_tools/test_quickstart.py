"""tools/quickstart.py: a finished stage is skipped only for its own config."""
import pytest

from tests.helpers import load_tool


@pytest.fixture
def quickstart(monkeypatch):
    module = load_tool('tools/quickstart.py')
    commands = []
    monkeypatch.setattr(module, 'run', lambda cmd: commands.append(cmd))
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
