"""tools/dist_train.sh: two CPU processes (torchrun, gloo) train the tiny
config for one epoch, validate, and rank 0 writes the one checkpoint."""
import subprocess
import sys

import pytest
import torch

import mmidc  # noqa: F401  (weights_only allow-list)
from tests.helpers import REPO, free_port
from tests.helpers.tiny_run import SPLITS, tool_env, write_tiny_config

BATCH_PER_RANK = 4


def dist_train(tmp_path, nproc: int, gpu: bool = False):
    """``tools/dist_train.sh`` on the tiny config for one epoch; returns the
    output and the work dir (the run must succeed)."""
    config = write_tiny_config(str(tmp_path), max_epochs=1)
    work_dir = tmp_path / 'work'
    env = tool_env()
    if gpu:
        env.pop('CUDA_VISIBLE_DEVICES')  # tool_env hides GPUs from CPU tests
    env.update(PORT=str(free_port()), PYTHON=sys.executable)
    cmd = ['bash', str(REPO / 'tools' / 'dist_train.sh'), config, str(nproc),
           '--work-dir', str(work_dir),
           '--cfg-options', 'default_hooks.checkpoint.save_best=None']
    result = subprocess.run(cmd, cwd=str(REPO), env=env, capture_output=True,
                            text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert 'Distributed training: True' in output
    return output, work_dir


def check_checkpoint(work_dir, iterations: int) -> None:
    """One epoch checkpoint, loadable safely, plain keys, finite weights."""
    checkpoints = sorted(p.name for p in work_dir.rglob('*.pth'))
    assert checkpoints == ['epoch_1.pth']
    ckpt = torch.load(str(work_dir / 'epoch_1.pth'), map_location='cpu',
                      weights_only=True)
    assert ckpt['meta']['iter'] == iterations
    assert not any(k.startswith('module.') for k in ckpt['state_dict'])
    assert all(torch.isfinite(v).all() for v in ckpt['state_dict'].values()
               if v.is_floating_point())


def test_two_cpu_processes_train_and_save_one_checkpoint(tmp_path):
    output, work_dir = dist_train(tmp_path, 2)
    assert 'Distributed launcher: pytorch' in output
    assert 'Epoch(val) [1]' in output  # validation gathered over both ranks
    # the global batch: both ranks' batches, against the config's one process
    assert 'Global batch: 2 processes x 4 (train_dataloader.batch_size) = 8' \
        in output
    assert "The global batch 8 is not the config's base batch 4" in output
    assert 'train_dataloader.batch_size=2 (4 / 2 processes)' in output
    # 16 training pairs over 2 ranks x 4 per batch: 2 iterations each.
    check_checkpoint(work_dir, 2 * len(SPLITS['train']) // (2 * BATCH_PER_RANK))


@pytest.mark.cuda
def test_one_gpu_process_with_nccl_writes_a_checkpoint(tmp_path):
    """tools/dist_train.sh with one process on one GPU: NCCL, DDP with
    device_ids, one epoch, the checkpoint written and loadable safely."""
    output, work_dir = dist_train(tmp_path, 1, gpu=True)
    assert "'backend': 'nccl'" in output
    # 16 training pairs, one rank, batch 4: 4 iterations
    check_checkpoint(work_dir, 2 * len(SPLITS['train']) // BATCH_PER_RANK)


def test_a_sigterm_to_the_job_saves_and_exits_143(tmp_path):
    """scancel: SIGTERM to every process of the job (the script, torchrun and
    the ranks, which torchrun signals again): the ranks save iter_<n>.pth,
    and the script exits with 143, a requeue script's cue."""
    import os
    import signal
    config = write_tiny_config(str(tmp_path), max_epochs=500)
    work_dir = tmp_path / 'work'
    env = tool_env()
    env.update(PORT=str(free_port()), PYTHON=sys.executable)
    cmd = ['bash', str(REPO / 'tools' / 'dist_train.sh'), config, '2',
           '--work-dir', str(work_dir), '--cfg-options',
           'default_hooks.checkpoint.save_best=None',
           'default_hooks.logger.interval=1']
    proc = subprocess.Popen(cmd, cwd=str(REPO), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        output = []
        for line in proc.stdout:
            output.append(line)
            if 'Epoch(train)' in line:  # training under way
                os.killpg(proc.pid, signal.SIGTERM)
                break
        output.append(proc.communicate(timeout=120)[0])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    output = ''.join(output)
    assert proc.returncode == 143, output[-4000:]
    assert 'SIGTERM received' in output
    saved = list(work_dir.rglob('iter_*.pth'))
    assert len(saved) == 1, output[-4000:]
    assert (work_dir / 'last_checkpoint').read_text().strip() == str(saved[0])
