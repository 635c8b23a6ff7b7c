"""Kills, full disks and broken pointers around checkpoint saves lose
nothing: the best checkpoint survives, a resume picks up the right file and
re-validates when it must, leftovers of a killed save are removed.

Faults come from :mod:`tests.helpers.fault_hooks`; every score of
``RisingScoreMetric`` is a new best, so each validation writes a best
checkpoint. In-process runs "kill" by raising ``Killed`` where the process
would die (the files are left as a kill leaves them); the kill in the middle
of a write is a real ``os._exit`` in a ``tools/train.py`` subprocess.
"""
import errno
import glob
import os
import os.path as osp
import shutil
from types import SimpleNamespace

import pytest
import torch

import mmidc  # noqa: F401
from tests.helpers import load_tool
from tests.helpers.fault_hooks import Killed
from tests.helpers.tiny_run import run_train, train_in_process, write_tiny_config

RISING = """
custom_imports = dict(imports=['tests.helpers.fault_hooks'],
                      allow_failed_imports=False)
val_evaluator = dict(type='RisingScoreMetric')
default_hooks = dict(logger=dict(interval=1), checkpoint=dict(
    save_best='score', rule='greater', max_keep_ckpts=-1))
"""


def fault(epoch, best=False, kind='kill'):
    return dict(custom_hooks=[
        dict(type='EpochReseedHook'),
        dict(type='FaultAtSaveHook', epoch=epoch, best=best, fault=kind)])


def load(path):
    return torch.load(path, map_location='cpu', weights_only=True)


def files(folder):
    return sorted(os.listdir(folder))


def best_files(folder):
    return [n for n in files(folder) if n.startswith('best_')]


@pytest.fixture(scope='module')
def config(tmp_path_factory, mmengine_on_cpu):
    root = str(tmp_path_factory.mktemp('faults'))
    return write_tiny_config(root, max_epochs=2, extra=RISING)


@pytest.fixture(scope='module')
def finished(config, tmp_path_factory):
    """A finished 2-epoch run (copy it before changing it)."""
    work_dir = str(tmp_path_factory.mktemp('finished') / 'work')
    train_in_process(config, work_dir)
    return work_dir


def test_kill_before_the_new_best_is_written_keeps_the_old_one(
        config, tmp_path):
    work_dir = str(tmp_path / 'work')
    with pytest.raises(Killed):
        train_in_process(config, work_dir,
                         cfg_options=fault(epoch=2, best=True))
    # Epoch 2 validated better; the kill came before its best was written.
    assert best_files(work_dir) == ['best_score_epoch_1.pth']
    load(osp.join(work_dir, 'best_score_epoch_1.pth'))

    # The resumed run (nothing left to train) validates epoch 2 again, as
    # its checkpoint records no validation of it, and writes its best.
    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    assert best_files(work_dir) == ['best_score_epoch_2.pth']
    hub = load(osp.join(work_dir, 'epoch_2.pth'))['message_hub']
    assert hub['runtime_info']['best_ckpt'].endswith('best_score_epoch_2.pth')


def test_resume_without_its_best_checkpoint_makes_a_new_one(
        config, tmp_path):
    """A best checkpoint lost (MMEngine's own hook removes the old best
    before it writes the new one) is rebuilt from the resumed model."""
    work_dir = str(tmp_path / 'work')
    train_in_process(config, work_dir)
    os.remove(osp.join(work_dir, 'best_score_epoch_2.pth'))
    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    assert best_files(work_dir) == ['best_score_epoch_2.pth']


def test_best_checkpoint_superseded_before_a_kill_is_removed_on_resume(
        config, finished, tmp_path):
    """A kill after the new best and the epoch checkpoint were written but
    before the old best was removed leaves two best files: the resumed run
    removes the one its checkpoint does not name. (The work dir was moved:
    its checkpoint names the files at their old place.)"""
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    shutil.copy(osp.join(work_dir, 'best_score_epoch_2.pth'),
                osp.join(work_dir, 'best_score_epoch_1.pth'))
    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    assert best_files(work_dir) == ['best_score_epoch_2.pth']
    assert best_files(finished) == ['best_score_epoch_2.pth']  # untouched


def test_full_disk_during_a_save_keeps_the_previous_checkpoint(
        config, tmp_path):
    work_dir = str(tmp_path / 'work')
    with pytest.raises(OSError) as err:
        train_in_process(config, work_dir,
                         cfg_options=fault(epoch=1, kind='full'))
    assert err.value.errno == errno.ENOSPC
    # the message names the checkpoint that was being written (epoch 1's
    # again, with its new best) and what is left of it
    assert f"cannot write {osp.join(work_dir, 'epoch_1.pth')} (the " \
        'previous file is unchanged)' in str(err.value)
    assert [n for n in files(work_dir) if 'checkpoint' in n or '.pth' in n] \
        == ['best_score_epoch_1.pth', 'epoch_1.pth', 'last_checkpoint']
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        assert f.read().endswith('epoch_1.pth')
    assert load(osp.join(work_dir, 'epoch_1.pth'))['meta']['epoch'] == 1

    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    assert best_files(work_dir) == ['best_score_epoch_2.pth']


def test_kill_during_a_write_leaves_a_temp_file_the_next_start_removes(
        config, tmp_path):
    work_dir = str(tmp_path / 'work')
    exit_config = write_tiny_config(
        osp.dirname(config), max_epochs=2, name='tiny_exit.py',
        extra=RISING + f'custom_hooks = {fault(epoch=1, kind="exit")["custom_hooks"]!r}\n')
    killed = run_train(exit_config, '--work-dir', work_dir)
    assert killed.returncode == 3, killed.stderr[-3000:]
    temps = [n for n in files(work_dir) if n.endswith('.tmp')]
    # killed while epoch_1.pth was written again, with its new best
    assert len(temps) == 1 and temps[0].startswith('.epoch_1.pth.')
    assert os.path.getsize(osp.join(work_dir, temps[0])) > 10000
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        assert f.read().endswith('epoch_1.pth')

    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    assert not [n for n in files(work_dir) if n.endswith('.tmp')]
    assert load(osp.join(work_dir, 'epoch_2.pth'))['meta']['epoch'] == 2


def test_checkpoints_and_pointer_are_written_atomically_with_mode_0644(
        config, tmp_path, monkeypatch):
    replaced = []
    real_replace = os.replace

    def replace(src, dst):
        replaced.append(osp.basename(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, 'replace', replace)
    umask = os.umask(0o022)
    try:
        work_dir = str(tmp_path / 'work')
        train_in_process(config, work_dir,
                         cfg_options=dict(train_cfg=dict(max_epochs=1)))
    finally:
        os.umask(umask)
    assert {'epoch_1.pth', 'best_score_epoch_1.pth',
            'last_checkpoint'} <= set(replaced)
    for name in ('epoch_1.pth', 'best_score_epoch_1.pth', 'last_checkpoint'):
        mode = os.stat(osp.join(work_dir, name)).st_mode & 0o777
        assert mode == 0o644, (name, oct(mode))


# --- the last_checkpoint pointer on --resume -------------------------------
def resume_args(work_dir):
    return SimpleNamespace(config='tiny.py', launcher='none',
                           work_dir=work_dir, fused_optim=False, amp=None,
                           compile=None, image_cache=False, resume='auto')


@pytest.mark.parametrize('pointer', ['', 'gone/epoch_9.pth', 'truncated'])
def test_resume_with_a_bad_pointer_takes_the_newest_complete_checkpoint(
        finished, tmp_path, pointer):
    from mmengine.config import Config
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    newest = 'epoch_2.pth'
    if pointer == 'truncated':  # a torn write of the newest checkpoint
        pointer = osp.join(work_dir, newest)
        with open(pointer, 'r+b') as f:
            f.truncate(1000)
        newest = 'epoch_1.pth'
    with open(osp.join(work_dir, 'last_checkpoint'), 'w') as f:
        f.write(pointer)
    cfg = load_tool('tools/train.py').merge_args(
        Config(dict(work_dir=work_dir)), resume_args(work_dir))
    assert cfg.resume is True
    assert cfg.load_from == osp.join(work_dir, newest)


def test_resume_with_a_bad_pointer_takes_the_latest_of_iter_and_epoch_files(
        finished, tmp_path):
    """An ``iter_<n>.pth`` of a SIGTERM (n counts iterations) is older than a
    later ``epoch_<m>.pth`` (m counts epochs) even when n > m: the newest is
    the one furthest in training."""
    from mmidc.engine import find_resume_checkpoint
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    # the SIGTERM checkpoint at the end of epoch 1 (iteration 4 of 8)
    shutil.copy(osp.join(work_dir, 'epoch_1.pth'),
                osp.join(work_dir, 'iter_4.pth'))
    with open(osp.join(work_dir, 'last_checkpoint'), 'w') as f:
        f.write('')
    assert find_resume_checkpoint(work_dir) == osp.join(work_dir,
                                                        'epoch_2.pth')
    os.remove(osp.join(work_dir, 'epoch_2.pth'))
    # the same training step: the SIGTERM file (it has the later state)
    assert find_resume_checkpoint(work_dir) in (
        osp.join(work_dir, 'iter_4.pth'), osp.join(work_dir, 'epoch_1.pth'))


def test_resume_with_an_empty_pointer_and_no_checkpoint_names_the_pointer(
        tmp_path):
    from mmidc.engine import find_resume_checkpoint
    (tmp_path / 'last_checkpoint').write_text('')
    with pytest.raises(FileNotFoundError,
                       match=r'last_checkpoint is empty.*--resume PATH'):
        find_resume_checkpoint(str(tmp_path))
    os.remove(tmp_path / 'last_checkpoint')
    assert find_resume_checkpoint(str(tmp_path)) is None  # a fresh start


def test_resume_in_a_fresh_work_dir_says_it_starts_from_scratch(
        tmp_path, monkeypatch):
    """``--resume`` with nothing to resume: a fresh run, said as such (not
    MMEngine's 'Auto resumed from the latest checkpoint None')."""
    from mmengine.config import Config

    import mmidc.cli.train as train_cli
    lines = []
    monkeypatch.setattr(train_cli, 'print_log',
                        lambda msg, **kwargs: lines.append(msg))
    work_dir = str(tmp_path / 'fresh')
    cfg = load_tool('tools/train.py').merge_args(
        Config(dict(work_dir=work_dir)), resume_args(work_dir))
    assert cfg.resume is False and cfg.load_from is None
    assert lines == [f'--resume: {work_dir} holds no checkpoint to resume '
                     'from (no last_checkpoint, no epoch_*.pth or '
                     'iter_*.pth): the run starts from scratch']


def test_pointer_of_a_finished_run_is_followed(finished):
    from mmidc.engine import find_resume_checkpoint
    assert find_resume_checkpoint(finished) == osp.join(finished,
                                                        'epoch_2.pth')


# --- resuming with other settings ------------------------------------------
def record_resume_log(monkeypatch):
    from mmidc.engine import resume_check
    lines = []
    monkeypatch.setattr(resume_check, 'print_log',
                        lambda msg, **kwargs: lines.append(msg))
    return lines


def test_resume_names_a_new_lr_and_keeps_the_checkpoints(
        config, finished, tmp_path, monkeypatch):
    """The saved optimizer state wins over a new lr: said, not silent."""
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    lines = record_resume_log(monkeypatch)
    runner = train_in_process(config, work_dir, resume=True, cfg_options={
        'optim_wrapper.optimizer.lr': 0.5})
    assert len(lines) == 1
    assert "optim_wrapper.optimizer.lr: checkpoint 0.001, config 0.5 -> " \
        "the run uses the checkpoint's 0.001" in lines[0]
    assert 'breaks' not in lines[0]
    saved = load(osp.join(finished, 'epoch_2.pth'))['optimizer']
    assert [g['lr'] for g in runner.optim_wrapper.param_groups] == \
        [g['lr'] for g in saved['param_groups']]


def checkpoint_runner(ckpt, options=None, train_set_size=16):
    """What check_resume_config reads of a runner: the config (the
    checkpoint's, ``options`` merged), the processes, the training set."""
    from mmengine.config import Config
    cfg = Config.fromstring(ckpt['meta']['cfg'], file_format='.py')
    cfg.merge_from_dict(options or {})
    return SimpleNamespace(
        cfg=cfg, world_size=1,
        train_dataloader=SimpleNamespace(dataset=[0] * train_set_size))


def test_resume_with_another_batch_size_is_refused_unless_allowed(
        finished, monkeypatch):
    from mmidc.engine.resume_check import ResumeRefusedError, check_resume_config
    ckpt = load(osp.join(finished, 'epoch_2.pth'))
    options = {'train_dataloader.batch_size': 2, 'train_cfg.max_epochs': 3}
    with pytest.raises(ResumeRefusedError) as err:
        check_resume_config(checkpoint_runner(ckpt, options), ckpt)
    message = str(err.value)
    assert "train_dataloader.batch_size: checkpoint 4, config 2 -> the run " \
        "uses the config's 2 [breaks the schedule]" in message
    assert 'train_cfg.max_epochs: checkpoint 2, config 3' in message
    assert '--resume-allow-changes' in message

    lines = record_resume_log(monkeypatch)
    options['resume_allow_changes'] = True
    check_resume_config(checkpoint_runner(ckpt, options), ckpt)
    assert 'train_dataloader.batch_size: checkpoint 4, config 2' in lines[0]


def test_resume_on_another_training_set_size_is_refused(finished):
    from mmidc.engine.resume_check import check_resume_config
    ckpt = load(osp.join(finished, 'epoch_2.pth'))
    assert ckpt['meta']['train_set_size'] == 16
    assert ckpt['meta']['world_size'] == 1
    with pytest.raises(RuntimeError, match=r'train_set_size: checkpoint 16, '
                       r"config 12 -> the run uses the config's 12 \[breaks"):
        check_resume_config(checkpoint_runner(ckpt, train_set_size=12), ckpt)
    check_resume_config(checkpoint_runner(ckpt), ckpt)  # nothing differs


def test_a_copied_work_dir_resumes_from_its_own_checkpoint(finished, tmp_path):
    """last_checkpoint holds the original's absolute path: the copy resumes
    from its own file of that name, or from its own newest one."""
    from mmidc.engine import find_resume_checkpoint
    copy = str(tmp_path / 'copy')
    shutil.copytree(finished, copy)
    with open(osp.join(copy, 'last_checkpoint')) as f:
        assert f.read().strip() == osp.join(finished, 'epoch_2.pth')
    assert find_resume_checkpoint(copy) == osp.join(copy, 'epoch_2.pth')
    os.remove(osp.join(copy, 'epoch_2.pth'))  # not copied
    assert find_resume_checkpoint(copy) == osp.join(copy, 'epoch_1.pth')
    with open(osp.join(copy, 'last_checkpoint'), 'w') as f:
        f.write('epoch_1.pth')  # a relative name: in the work dir
    assert find_resume_checkpoint(copy) == osp.join(copy, 'epoch_1.pth')


def test_a_run_resumed_into_another_work_dir_leaves_the_original_best(
        config, tmp_path):
    """``--resume OTHER/epoch_1.pth --work-dir NEW``: the new run writes its
    own best checkpoint and never removes the one in the other work dir."""
    original = str(tmp_path / 'original')
    kill = dict(custom_hooks=[dict(type='EpochReseedHook'),
                              dict(type='KillAtIterHook', iteration=5)])
    with pytest.raises(Killed):
        train_in_process(config, original, cfg_options=kill)
    assert best_files(original) == ['best_score_epoch_1.pth']
    work_dir = str(tmp_path / 'work')
    runner = train_in_process(config, work_dir, resume=True, cfg_options={
        'load_from': osp.join(original, 'epoch_1.pth')})
    assert runner.iter == 8
    assert best_files(work_dir) == ['best_score_epoch_2.pth']
    assert best_files(original) == ['best_score_epoch_1.pth']  # untouched
    load(osp.join(original, 'best_score_epoch_1.pth'))


def test_resume_compares_a_config_whose_custom_imports_are_gone(finished):
    """The checkpoint's config imports a module this process cannot (a
    hook removed since, another PYTHONPATH): its settings are still compared,
    and a schedule change is still refused."""
    from mmidc.engine.resume_check import ResumeRefusedError, check_resume_config
    ckpt = load(osp.join(finished, 'epoch_2.pth'))
    runner = checkpoint_runner(ckpt, {'train_dataloader.batch_size': 2})
    ckpt['meta']['cfg'] += (
        "\ncustom_imports = dict(imports=['no_such_module_of_mine'], "
        'allow_failed_imports=False)\n')
    with pytest.raises(ResumeRefusedError, match=r'train_dataloader.batch_size'
                       r': checkpoint 4, config 2'):
        check_resume_config(runner, ckpt)


def test_resume_compares_the_training_set_of_an_unreadable_config(finished):
    from mmidc.engine.resume_check import check_resume_config
    ckpt = load(osp.join(finished, 'epoch_2.pth'))
    runner = checkpoint_runner(ckpt, train_set_size=12)
    ckpt['meta']['cfg'] = 'this is not python ('
    with pytest.raises(RuntimeError, match=r'train_set_size: checkpoint 16, '
                       r"config 12 -> the run uses the config's 12 \[breaks"):
        check_resume_config(runner, ckpt)


def run_log(work_dir) -> str:
    """The text log of the newest run in ``work_dir``."""
    return open(sorted(glob.glob(osp.join(work_dir, '*', '*.log')))[-1]).read()


def test_a_finished_run_resumed_says_nothing_is_left_to_train(
        config, finished, tmp_path):
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    runner = train_in_process(config, work_dir, resume=True)
    assert runner.iter == 8
    log = run_log(work_dir)
    assert 'resumed at the end of the run (epoch 2 of train_cfg.max_epochs=2)' \
        ': nothing is left to train' in log
    assert 'before training on' not in log


def test_resume_with_another_model_shape_is_refused(config, finished,
                                                    tmp_path):
    """A resume continues the checkpoint's model: weights of another shape
    (or missing ones) would be left at random and the optimizer state would
    not fit them, so the resume is refused, naming them."""
    from mmidc.engine.resume_check import ResumeRefusedError
    work_dir = str(tmp_path / 'work')
    shutil.copytree(finished, work_dir)
    for options in ({'model.backbone.arch.vision_cfg.width': 64},
                    {'model.backbone.arch.vision_cfg.width': 64,
                     'resume_allow_changes': True}):
        with pytest.raises(ResumeRefusedError) as err:
            train_in_process(config, work_dir, resume=True,
                             cfg_options=options)
        message = str(err.value)
        assert 'epoch_2.pth' in message
        assert 'weight(s) of another shape' in message
        assert 'backbone.' in message and 'load_from' in message
