"""A run killed mid-epoch and resumed with --resume ends exactly where the
uninterrupted run of the same seed ends (weights, optimizer, scheduler).

The uninterrupted and the resumed runs train in this process (one thread);
the interrupted run is ``tools/train.py`` in a subprocess (one thread) that a
hook kills with ``os._exit(1)`` at the third iteration of epoch 2, after the
epoch-1 checkpoint was written.
"""
import os.path as osp

import pytest
import torch
from mmengine.config import Config
from mmengine.runner import Runner

import mmidc  # noqa: F401  (weights_only allow-list, registries)
import projects.from_scratch  # noqa: F401  (the captioner's head)
from mmidc.models.utils import resolve_checkpoint
from mmidc.registry import MODELS
from mmidc.runtime.config_check import check_config
from tests.helpers.tiny_run import (ITERS_PER_EPOCH, run_train,
                                    write_tiny_config)

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
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=arch, num_inter_layers=1),
        head=dict(type='TransformerCaptionHead', hidden=32, num_heads=2,
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
