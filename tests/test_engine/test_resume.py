"""A run killed mid-epoch and resumed with --resume ends exactly where the
uninterrupted run of the same seed ends (weights, optimizer, scheduler).

The uninterrupted and the resumed runs train in this process (one thread);
the interrupted run is ``tools/train.py`` in a subprocess (one thread) that a
hook kills with ``os._exit(1)`` at the third iteration of epoch 2, after the
epoch-1 checkpoint was written.

The same with the shipped loader settings (two worker processes that persist
through the run), for CLIP4IDC's adaptation (epoch-based, resumed from an
epoch checkpoint) and IDC-PCL's pre-training (iteration-based, resumed from
an iteration checkpoint): the random draws of the data pipeline and of the
model are the uninterrupted run's, and so are the weights, bit for bit. These
runs are "killed" by an exception in this process, which leaves the files as
a kill leaves them (IDC-PCL's by a SIGTERM, which saves a checkpoint);
the resumed run starts new workers.
"""
import json
import os
import os.path as osp
import shutil
import signal
import subprocess
import time

import pytest
import torch
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.runner import Runner, loops

import mmidc  # noqa: F401  (weights_only allow-list, registries)
import projects.from_scratch  # noqa: F401  (the captioner's head)
from mmidc.utils import resolve_checkpoint
from mmidc.registry import HOOKS, MODELS
from mmidc.runtime.config_check import check_config
from tests.helpers import REPO
from tests.helpers.fault_hooks import Killed
from tests.helpers.tiny_run import (ITERS_PER_EPOCH, make_tiny_data, run_train,
                                    train_in_process, write_tiny_config)

MAX_EPOCHS = 3
KILL_EPOCH, KILL_ITER = 1, 2  # 0-based: epoch 2, its third iteration

EXIT_HOOK = '''\
import os
from mmengine.hooks import Hook
from mmidc.registry import HOOKS


@HOOKS.register_module()
class ExitAtIterHook(Hook):
    """Kill the process (no cleanup, no checkpoint) before one iteration."""

    def __init__(self, epoch, iteration):
        self.epoch, self.iteration = epoch, iteration

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        if runner.epoch == self.epoch and batch_idx == self.iteration:
            os._exit(1)
'''
KILL_CONFIG = f'''
custom_imports = dict(imports=['exit_hook'], allow_failed_imports=False)
custom_hooks = [
    dict(type='EpochReseedHook'),
    dict(type='ExitAtIterHook', epoch={KILL_EPOCH}, iteration={KILL_ITER}),
]
'''


def train_here(config: str, work_dir: str, resume: bool = False) -> Runner:
    """Train like tools/train.py, in this process, single-threaded."""
    cfg = Config.fromfile(config)
    cfg.work_dir = work_dir
    cfg.resume = resume
    cfg.load_from = None
    cfg.experiment_name = f'{osp.basename(work_dir)}_resume{int(resume)}'
    check_config(cfg)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        runner = Runner.from_cfg(cfg)
        runner.train()
    finally:
        torch.set_num_threads(threads)
    return runner


def load_safe(path: str) -> dict:
    # The MMEngine checkpoint format, loaded with the allow-list only.
    return torch.load(path, map_location='cpu', weights_only=True)


@pytest.fixture(scope='module')
def runs(tmp_path_factory, mmengine_on_cpu):
    root = str(tmp_path_factory.mktemp('resume'))
    config = write_tiny_config(root, max_epochs=MAX_EPOCHS)
    full = train_here(config, osp.join(root, 'full'))
    return dict(root=root, config=config, full=full,
                full_dir=osp.join(root, 'full'))


def test_killed_run_resumes_to_the_uninterrupted_result(runs):
    root, config = runs['root'], runs['config']
    with open(osp.join(root, 'exit_hook.py'), 'w') as f:
        f.write(EXIT_HOOK)
    kill_config = write_tiny_config(root, MAX_EPOCHS, extra=KILL_CONFIG,
                                    name='tiny_adapt_killed.py')
    work_dir = osp.join(root, 'killed')

    killed = run_train(kill_config, '--work-dir', work_dir,
                       extra_pythonpath=root)
    assert killed.returncode == 1, killed.stderr[-3000:]
    assert osp.isfile(osp.join(work_dir, 'epoch_1.pth'))
    assert not osp.exists(osp.join(work_dir, 'epoch_2.pth'))
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        assert f.read().strip().endswith('epoch_1.pth')
    # What the resume starts from holds optimizer and scheduler state.
    ckpt = load_safe(osp.join(work_dir, 'epoch_1.pth'))
    assert ckpt['meta']['epoch'] == 1
    assert ckpt['meta']['iter'] == ITERS_PER_EPOCH
    assert ckpt['optimizer']['state']  # Adam moments after 4 steps
    assert len(ckpt['param_schedulers']) == 2

    resumed = train_here(config, work_dir, resume=True)
    assert resumed.epoch == MAX_EPOCHS
    assert resumed.iter == MAX_EPOCHS * ITERS_PER_EPOCH

    # Same weights as the uninterrupted run (same seed, one thread).
    full_state = runs['full'].model.state_dict()
    resumed_state = resumed.model.state_dict()
    assert full_state.keys() == resumed_state.keys()
    for key in full_state:
        torch.testing.assert_close(resumed_state[key], full_state[key],
                                   rtol=1e-6, atol=1e-7, msg=key)

    # Same optimizer and scheduler state in the final checkpoints.
    a = load_safe(osp.join(runs['full_dir'], f'epoch_{MAX_EPOCHS}.pth'))
    b = load_safe(osp.join(work_dir, f'epoch_{MAX_EPOCHS}.pth'))
    for param_id, state in a['optimizer']['state'].items():
        for name, value in state.items():
            torch.testing.assert_close(b['optimizer']['state'][param_id][name],
                                       value, rtol=1e-6, atol=1e-7)
    lrs = [g['lr'] for g in a['optimizer']['param_groups']]
    assert [g['lr'] for g in b['optimizer']['param_groups']] == pytest.approx(lrs)
    for sched_a, sched_b in zip(a['param_schedulers'], b['param_schedulers']):
        assert sched_b['last_step'] == sched_a['last_step']
        assert sched_b['_last_value'] == pytest.approx(sched_a['_last_value'])


def test_best_checkpoint_pattern_feeds_the_captioner(runs):
    """The captioning configs' ``init_backbone_from`` glob finds what
    CheckpointHook(save_best='rsum') wrote, and a miss names the pattern."""
    work_dir = runs['full_dir']
    best = resolve_checkpoint(osp.join(work_dir, 'best_rsum_*.pth'))
    assert osp.basename(best).startswith('best_rsum_epoch_')
    arch = Config.fromfile(runs['config']).tiny_arch.to_dict()
    captioner = MODELS.build(dict(
        type='ConditionedCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=arch, num_inter_layers=1),
        head=dict(type='ScratchCaptionHead', hidden=32, num_heads=2,
                  num_encoder_layers=1, num_decoder_layers=1,
                  vocab=['the cube moved']),
        init_backbone_from=osp.join(work_dir, 'best_rsum_*.pth')))
    state = load_safe(best)['state_dict']
    torch.testing.assert_close(captioner.backbone.ln_joint.weight,
                               state['backbone.ln_joint.weight'])
    missing = osp.join(work_dir, 'no_such_run', 'best_rsum_*.pth')
    with pytest.raises(FileNotFoundError, match='no_such_run'):
        resolve_checkpoint(missing)


@pytest.mark.cuda
def test_resume_on_cuda_matches_the_uninterrupted_run(tmp_path):
    """The same on one GPU: the uninterrupted run, the killed tools/train.py
    run and the resumed run all on CUDA. Some CUDA kernels (atomics in
    backward passes) are not bit-reproducible from run to run, so weights
    are compared to float32 rounding, not bit for bit."""
    import os
    root = str(tmp_path)
    config = write_tiny_config(root, max_epochs=MAX_EPOCHS)
    full = train_here(config, osp.join(root, 'full'))
    assert next(full.model.parameters()).is_cuda
    with open(osp.join(root, 'exit_hook.py'), 'w') as f:
        f.write(EXIT_HOOK)
    kill_config = write_tiny_config(root, MAX_EPOCHS, extra=KILL_CONFIG,
                                    name='tiny_adapt_killed.py')
    work_dir = osp.join(root, 'killed')
    gpu = dict(CUDA_VISIBLE_DEVICES=os.environ.get('CUDA_VISIBLE_DEVICES', '0'))
    killed = run_train(kill_config, '--work-dir', work_dir,
                       extra_pythonpath=root, extra_env=gpu)
    assert killed.returncode == 1, killed.stderr[-3000:]
    assert osp.isfile(osp.join(work_dir, 'epoch_1.pth'))
    resumed = train_here(config, work_dir, resume=True)
    assert next(resumed.model.parameters()).is_cuda
    assert resumed.iter == MAX_EPOCHS * ITERS_PER_EPOCH
    full_state = full.model.state_dict()
    for key, value in resumed.model.state_dict().items():
        torch.testing.assert_close(value, full_state[key], rtol=1e-4, atol=1e-5,
                                   msg=key)


# ---------------------------------------------------------------------------
# The shipped loader settings: worker processes that live through the run.
# Every random draw of the data pipeline (the caption, the distractor swap,
# the hard negatives) and of the model (IDC-PCL's masks) must be the same in
# a run that was interrupted and resumed as in the uninterrupted run.

WORKERS = {'train_dataloader.num_workers': 2,
           'train_dataloader.persistent_workers': True}

# CLIP4IDC's adaptation as the paper configs train it: every caption once per
# epoch (the same pair several times an epoch), the distractor swap, a
# caption drawn per visit. 16 pairs x 2 captions / batch 4 = 8 iterations.
ADAPT_WITH_WORKERS = """
train_dataloader['sampler']['sampler'] = dict(type='RepeatByCaptionsSampler',
                                             shuffle=True)
train_dataloader['dataset'].update(with_distractor_path=True, pipeline=[
    dict(type='RandomDistractorBefore', prob=0.5), load_pair,
    dict(type='ResizePair', size=(32, 32)),
    dict(type='TokenizeCaptions', context_length=16, mode='random'),
    dict(type='PackIDCInputs')])
"""
ADAPT_ITERS = 8  # per epoch

# IDC-PCL's pre-training as its paper configs train it: an iteration-based
# loop (the loader restarted after every pass over the 16 pairs), checkpoints
# every few iterations; the tasks' masks are drawn in the main process, the
# caption and the hard negatives in the workers.
PRETRAIN_WITH_WORKERS = """
_base_ = [{runtime!r}]
data_root = {data_root!r}
train_dataloader = dict(
    batch_size=4, num_workers=2, persistent_workers=True,
    sampler=dict(type='SampleSeedSampler',
                 sampler=dict(type='DefaultSampler', shuffle=True)),
    collate_fn=dict(type='pseudo_collate'),
    dataset=dict(type='CLEVRChangeDataset', data_root=data_root,
                 split='train', pipeline=[
                     dict(type='LoadImagePair'),
                     dict(type='ResizePair', size=(32, 48)),
                     dict(type='TokenizeCaptions', context_length=16),
                     dict(type='SampleHardNegatives', num_negatives=2,
                          negatives_file={negatives!r}),
                     dict(type='PackIDCInputs', meta_keys=(
                         'pair_id', 'change_type', 'gt_captions',
                         'negative_captions'))]))
model = dict(
    type='IDCPCLPretrainer', hidden=32,
    feature_encoder=dict(
        type='PairFeatureEncoder', image_size=(32, 48),
        backbone=dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                      base_channels=8, num_stages=3, strides=(1, 2, 2),
                      dilations=(1, 1, 1), out_indices=(2, ))),
    single_image_encoder=dict(type='SingleImageEncoder', num_heads=2),
    pair_encoder=dict(type='PairEncoder', num_heads=2),
    cross_modal=dict(type='CrossModalTransformer', num_layers=1, num_heads=2,
                     max_length=16,
                     vocab=data_root + '/caption_vocab_train.json'),
    task_weights=dict(mlm=1, mvcl=1, fda=1), task_seed=5)
optim_wrapper = dict(type='OptimWrapper',
                     optimizer=dict(type='AdamW', lr=1e-3))
train_cfg = dict(type='IterBasedTrainLoop', max_iters={max_iters})
val_cfg = None
val_dataloader = None
val_evaluator = None
default_hooks = dict(logger=dict(interval=1),
                     checkpoint=dict(by_epoch=False, interval=3,
                                     max_keep_ckpts=-1))
log_processor = dict(by_epoch=False)
randomness = dict(seed=0)
"""
PRETRAIN_ITERS = 8  # 2 passes over the 16 pairs
PRETRAIN_STOP = 6  # SIGTERM in iteration 7: the resume skips 7 batches


def write_hard_negatives(data_root: str) -> str:
    """Each training caption's hard negatives: two other captions of the
    split (one kind), so that both the kinds' shuffle and the easy
    negatives are drawn."""
    from mmidc.datasets.preparation.hard_negatives import save_hard_negatives
    with open(osp.join(data_root, 'change_captions.json')) as f:
        captions = sorted({c for cs in json.load(f).values() for c in cs})
    captions += ['no change was made', 'there is no change']
    negatives = {c: dict(retrieve=[o for o in captions if o != c][:3],
                         replace=[], confuse=[]) for c in captions}
    path = osp.join(data_root, 'hard_negatives_train.json')
    save_hard_negatives(path, negatives, meta=dict(seed=0))
    return path


def assert_same_weights(resumed, full) -> None:
    full_state = full.model.state_dict()
    resumed_state = resumed.model.state_dict()
    assert full_state.keys() == resumed_state.keys()
    differ = [k for k in full_state
              if not torch.equal(resumed_state[k], full_state[k])]
    assert not differ, f'{len(differ)} tensors differ, e.g. {differ[:3]}'


def kill_options(iteration: int) -> dict:
    # KillAtIterHook is registered by importing tests.helpers.fault_hooks.
    return dict(custom_hooks=[
            dict(type='EpochReseedHook'),
            dict(type='KillAtIterHook', iteration=iteration)])


@pytest.fixture(scope='module')
def adapt_full(tmp_path_factory, mmengine_on_cpu):
    """The uninterrupted 2-epoch adaptation run with persistent workers."""
    root = tmp_path_factory.mktemp('adapt_workers')
    config = write_tiny_config(str(root), max_epochs=2,
                               extra=ADAPT_WITH_WORKERS)
    full = train_in_process(config, str(root / 'full'), cfg_options=WORKERS)
    assert full.iter == 2 * ADAPT_ITERS
    return config, full


def test_adaptation_with_persistent_workers_resumes_to_the_same_weights(
        adapt_full, tmp_path):
    """Killed in epoch 2 (iteration 3 of 8), resumed from epoch_1.pth."""
    config, full = adapt_full
    work_dir = str(tmp_path / 'killed')
    with pytest.raises(Killed):
        train_in_process(config, work_dir, cfg_options=dict(
            WORKERS, **kill_options(ADAPT_ITERS + 3)))
    assert sorted(f for f in os.listdir(work_dir) if f.endswith('.pth')) \
        == ['best_rsum_epoch_1.pth', 'epoch_1.pth']
    resumed = train_in_process(config, work_dir, resume=True,
                               cfg_options=WORKERS)
    assert resumed.iter == full.iter
    assert_same_weights(resumed, full)


@HOOKS.register_module(force=True)
class RecordBatchesHook(Hook):
    """Record ``(epoch, batch_idx, iter)`` of every training iteration in
    ``RecordBatchesHook.seen`` (a config holds copies, not the list)."""

    seen: list = []

    def before_train_iter(self, runner, batch_idx, data_batch=None) -> None:
        self.seen.append((runner.epoch, batch_idx, runner.iter))


# Iteration checkpoints every 5 iterations (what a Slurm user sets to survive
# preemption): iter_10.pth is written after batch 2 of epoch 2's 8.
BY_ITER = {'default_hooks.checkpoint.by_epoch': False,
           'default_hooks.checkpoint.interval': 5}


@HOOKS.register_module(force=True)
class SigtermAtIterHook(Hook):
    """Send SIGTERM to this process and its loader workers (as ``scancel``
    does) before training iteration ``iteration``."""

    def __init__(self, iteration: int):
        self.iteration = iteration

    def before_train_iter(self, runner, batch_idx, data_batch=None) -> None:
        if runner.iter != self.iteration:
            return
        # without a handler the signal would end the test session
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
        # The workers get it from another process (scancel), as PyTorch's
        # workers die of a SIGTERM their parent does not send. Persistent
        # workers are the loader's; an iteration-based loop's others, its
        # iterator's.
        loop = runner.train_loop
        iterator = getattr(loop.dataloader, '_iterator', None) or getattr(
            getattr(loop, 'dataloader_iterator', None), '_iterator', None)
        workers = getattr(iterator, '_workers', [])
        assert len(workers) == 2
        subprocess.run(['kill', '-TERM'] + [str(w.pid) for w in workers],
                       check=True)
        time.sleep(0.5)
        assert all(w.is_alive() for w in workers)
        os.kill(os.getpid(), signal.SIGTERM)


@pytest.fixture(scope='module')
def killed_mid_epoch(adapt_full, tmp_path_factory):
    """The adaptation run with iteration checkpoints (iter_5.pth,
    iter_10.pth), stopped by a SIGTERM during iteration 13 (batch 5 of
    epoch 2): it saves iter_13.pth and exits (copy the work dir before
    resuming)."""
    config, _ = adapt_full
    work_dir = str(tmp_path_factory.mktemp('mid_epoch') / 'killed')
    with pytest.raises(SystemExit) as stop:
        train_in_process(config, work_dir, cfg_options=dict(
            WORKERS, **BY_ITER, custom_hooks=[
                dict(type='EpochReseedHook'),
                dict(type='SigtermAtIterHook', iteration=ADAPT_ITERS + 4)]))
    assert stop.value.code == 143
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        assert f.read().strip() == osp.join(work_dir, 'iter_13.pth')
    for name, meta in (('iter_10.pth', (1, 10)), ('iter_13.pth', (1, 13))):
        ckpt = load_safe(osp.join(work_dir, name))
        assert (ckpt['meta']['epoch'], ckpt['meta']['iter']) == meta
        assert ckpt['optimizer']['state'] and ckpt['param_schedulers']
    return work_dir


def resume_mid_epoch(config: str, work_dir: str, load_from: str = None):
    """Resume, recording the batches trained: ``(epoch, batch, iter)``."""
    RecordBatchesHook.seen.clear()
    runner = train_in_process(config, work_dir, resume=True, cfg_options=dict(
        WORKERS, **BY_ITER, load_from=load_from, custom_hooks=[
            dict(type='EpochReseedHook'), dict(type='RecordBatchesHook')]))
    return runner, list(RecordBatchesHook.seen)


def test_adaptation_resumed_mid_epoch_goes_on_at_the_next_unseen_batch(
        adapt_full, killed_mid_epoch, tmp_path):
    """Resumed from iter_10.pth (after batch 2 of epoch 2's 8): the resumed
    epoch trains its last 6 batches, not all 8 again, and ends with the
    uninterrupted run's weights, bit for bit."""
    config, full = adapt_full
    work_dir = str(tmp_path / 'work')
    shutil.copytree(killed_mid_epoch, work_dir)
    resumed, seen = resume_mid_epoch(config, work_dir,
                                     osp.join(work_dir, 'iter_10.pth'))
    assert seen == [(1, b, ADAPT_ITERS + b) for b in range(2, ADAPT_ITERS)]
    assert resumed.iter == full.iter
    assert_same_weights(resumed, full)


def test_a_run_stopped_by_sigterm_resumes_at_the_next_batch(
        adapt_full, killed_mid_epoch, tmp_path):
    """--resume after the SIGTERM: last_checkpoint names iter_13.pth, the
    run goes on at batch 6 of epoch 2, the weights are the uninterrupted
    run's, bit for bit."""
    config, full = adapt_full
    work_dir = str(tmp_path / 'work')
    shutil.copytree(killed_mid_epoch, work_dir)
    resumed, seen = resume_mid_epoch(config, work_dir)
    assert seen == [(1, b, ADAPT_ITERS + b) for b in range(5, ADAPT_ITERS)]
    assert_same_weights(resumed, full)
    # max_keep_ckpts=-1 (keep them all): the SIGTERM's file stays too
    assert resumed.cfg.default_hooks.checkpoint.max_keep_ckpts == -1
    assert osp.isfile(osp.join(work_dir, 'iter_13.pth'))


def test_the_sigterm_checkpoint_goes_with_max_keep_ckpts(
        adapt_full, killed_mid_epoch, tmp_path):
    """With max_keep_ckpts, the iter_<n>.pth a SIGTERM wrote is removed once
    the resumed run has saved a newer checkpoint (else every preemption
    would leave one for good)."""
    config, _ = adapt_full
    work_dir = str(tmp_path / 'work')
    shutil.copytree(killed_mid_epoch, work_dir)
    train_in_process(config, work_dir, resume=True, cfg_options=dict(
        WORKERS, **BY_ITER, **{'default_hooks.checkpoint.max_keep_ckpts': 2},
        custom_hooks=[dict(type='EpochReseedHook')]))
    names = os.listdir(work_dir)
    assert 'iter_13.pth' not in names
    # the killed run kept all (-1): its own files are not the resumed run's
    assert {'iter_15.pth', 'iter_16.pth', 'iter_10.pth'} <= set(names)


def test_mid_epoch_resume_without_the_reseed_hook_is_refused(
        adapt_full, killed_mid_epoch, tmp_path):
    """Nothing starts the epoch at its next batch: an error, no replay."""
    config, _ = adapt_full
    work_dir = str(tmp_path / 'work')
    shutil.copytree(killed_mid_epoch, work_dir)
    with pytest.raises(RuntimeError, match=r'middle of epoch 2 .*after 5 of '
                       r'its 8 batches\).*no EpochReseedHook'):
        train_in_process(config, work_dir, resume=True,
                         cfg_options=dict(BY_ITER, custom_hooks=[]))


def test_idc_pcl_pretraining_with_persistent_workers_resumes_to_the_same_weights(
        tmp_path, mmengine_on_cpu, monkeypatch):
    """Iteration-based: a SIGTERM to the process and its loader workers
    during iteration 7 (workers the loop started when it was built, before
    any hook ran): exit status 143, iter_7.pth written; resumed from it (the
    loader advanced past 7 batches, into its second pass)."""
    # without MMEngine's 2 s pause each time the loop restarts its loader
    monkeypatch.setattr(loops.time, 'sleep', lambda seconds: None)
    data_root = make_tiny_data(str(tmp_path / 'data'))
    config = tmp_path / 'pretrain.py'
    config.write_text(PRETRAIN_WITH_WORKERS.format(
        runtime=str(REPO / 'configs' / '_base_' / 'default_runtime.py'),
        data_root=data_root, negatives=write_hard_negatives(data_root),
        max_iters=PRETRAIN_ITERS))
    full = train_in_process(str(config), str(tmp_path / 'full'))
    assert full.iter == PRETRAIN_ITERS
    work_dir = str(tmp_path / 'killed')
    with pytest.raises(SystemExit) as stop:
        train_in_process(str(config), work_dir, cfg_options=dict(custom_hooks=[
            dict(type='EpochReseedHook'),
            dict(type='SigtermAtIterHook', iteration=PRETRAIN_STOP)]))
    assert stop.value.code == 143
    with open(osp.join(work_dir, 'last_checkpoint')) as f:
        assert f.read().strip() == osp.join(work_dir, 'iter_7.pth')
    assert not osp.exists(osp.join(work_dir, f'iter_{PRETRAIN_ITERS}.pth'))
    resumed = train_in_process(str(config), work_dir, resume=True)
    assert resumed.iter == PRETRAIN_ITERS
    assert_same_weights(resumed, full)
