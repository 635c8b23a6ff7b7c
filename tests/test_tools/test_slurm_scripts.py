"""tools/slurm_train.sh and tools/slurm_test.sh hand srun OpenMMLab's
options, checked with a stand-in ``srun`` on PATH that records its
arguments; a wrong argument submits nothing."""
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

FAKE_SRUN = """#!/usr/bin/env bash
printf '%s\\n' "$@" > "{record}"
printf '%s\\n' "$PYTHONPATH" > "{record}.pythonpath"
"""


def run_script(tmp_path, script, args, **env):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / 'srun_args'
    srun = bin_dir / 'srun'
    srun.write_text(FAKE_SRUN.format(record=record))
    srun.chmod(0o755)
    environ = {k: v for k, v in os.environ.items()
               if k not in ('GPUS', 'GPUS_PER_NODE', 'CPUS_PER_TASK',
                            'SRUN_ARGS')}
    environ.update(env, PATH=f'{bin_dir}:{os.environ["PATH"]}',
                   PYTHON=sys.executable)
    result = subprocess.run(['bash', str(REPO / 'tools' / script), *args],
                            env=environ, capture_output=True, text=True)
    recorded = (record.read_text().splitlines()
                if record.exists() else None)
    return result, recorded


def test_train_hands_srun_the_convention(tmp_path, files):
    result, args = run_script(
        tmp_path, 'slurm_train.sh',
        ['gpu-part', 'clip4idc', files[0], 'work_dirs/x',
         '--cfg-options', 'train_dataloader.batch_size=8', '--resume'],
        GPUS='16', GPUS_PER_NODE='8', CPUS_PER_TASK='6',
        SRUN_ARGS='--time=24:00:00 --qos=normal')
    assert result.returncode == 0, result.stderr
    assert args == [
        '-p', 'gpu-part', '--job-name=clip4idc', '--gres=gpu:8',
        '--ntasks=16', '--ntasks-per-node=8', '--cpus-per-task=6',
        '--kill-on-bad-exit=1', '--time=24:00:00', '--qos=normal',
        sys.executable, '-u', str(REPO / 'tools' / 'train.py'),
        files[0], '--work-dir=work_dirs/x', '--launcher=slurm',
        '--cfg-options', 'train_dataloader.batch_size=8', '--resume']
    assert str(REPO) in (tmp_path / 'srun_args.pythonpath').read_text()


def test_test_hands_srun_the_checkpoint(tmp_path, files):
    result, args = run_script(
        tmp_path, 'slurm_test.sh',
        ['p', 'eval', *files, '--out', 'a b.json'],
        GPUS='2')
    assert result.returncode == 0, result.stderr
    assert args == [
        '-p', 'p', '--job-name=eval', '--gres=gpu:2', '--ntasks=2',
        '--ntasks-per-node=2', '--cpus-per-task=5', '--kill-on-bad-exit=1',
        sys.executable, '-u', str(REPO / 'tools' / 'test.py'),
        *files, '--launcher=slurm', '--out', 'a b.json']


def test_defaults_are_8_gpus_on_one_node(tmp_path, files):
    _, args = run_script(tmp_path, 'slurm_train.sh', ['p', 'j', files[0], 'w'])
    assert '--ntasks=8' in args and '--gres=gpu:8' in args
    assert '--ntasks-per-node=8' in args and '--cpus-per-task=5' in args


@pytest.mark.parametrize('script', ['slurm_train.sh', 'slurm_test.sh'])
def test_missing_arguments_print_the_usage(tmp_path, script):
    result, args = run_script(tmp_path, script, ['p', 'j', 'c'])
    assert result.returncode == 2 and args is None
    assert 'usage:' in result.stderr and 'PARTITION JOB_NAME' in result.stderr


@pytest.mark.parametrize('script, missing, message', [
    ('slurm_train.sh', 0, 'config not found: '),
    ('slurm_test.sh', 0, 'config not found: '),
    ('slurm_test.sh', 1, 'checkpoint not found: ')])
def test_a_missing_file_is_not_submitted(tmp_path, files, script, missing,
                                         message):
    given = list(files)
    given[missing] = str(tmp_path / 'missing')
    result, args = run_script(tmp_path, script, ['p', 'j', *given], GPUS='2')
    assert result.returncode == 2 and args is None
    assert message + given[missing] in result.stderr


@pytest.mark.parametrize('script, variable, value', [
    ('slurm_train.sh', 'GPUS', '0'), ('slurm_train.sh', 'GPUS', 'eight'),
    ('slurm_train.sh', 'GPUS', '-1'), ('slurm_test.sh', 'GPUS', '2 '),
    ('slurm_train.sh', 'GPUS_PER_NODE', '4x'),
    ('slurm_test.sh', 'CPUS_PER_TASK', '0')])
def test_a_count_that_is_no_whole_number_is_not_submitted(
        tmp_path, files, script, variable, value):
    result, args = run_script(tmp_path, script, ['p', 'j', *files],
                              **{variable: value})
    assert result.returncode == 2 and args is None
    assert f"{variable} must be a whole number of at least 1, got " \
        f"'{value}'" in result.stderr


@pytest.mark.parametrize('variable', ['GPUS', 'GPUS_PER_NODE'])
def test_a_count_never_runs_a_command(tmp_path, files, variable):
    """bash arithmetic evaluates a variable's text: an array subscript in it
    would run a command substitution."""
    marker = tmp_path / 'ran'
    result, args = run_script(tmp_path, 'slurm_train.sh',
                              ['p', 'j', files[0], 'w'],
                              **{variable: f'a[$(touch {marker})]'})
    assert result.returncode == 2 and args is None
    assert not marker.exists()
    assert f'{variable} must be a whole number' in result.stderr


@pytest.mark.parametrize('script, tool', [('slurm_train.sh', 'train.py'),
                                          ('slurm_test.sh', 'test.py')])
def test_tools_accept_the_slurm_launcher(script, tool, monkeypatch):
    from tests.helpers import load_tool
    parse_args = load_tool(f'tools/{tool}').parse_args
    argv = ['configs/x.py'] + (['ckpt.pth'] if tool == 'test.py' else [])
    monkeypatch.setenv('LOCAL_RANK', '0')  # parse_args sets it when absent
    monkeypatch.setattr(sys, 'argv', [tool, *argv, '--launcher', 'slurm'])
    assert parse_args().launcher == 'slurm'
