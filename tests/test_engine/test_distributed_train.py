"""tools/dist_train.sh: two CPU processes (torchrun, gloo) train the tiny
config for one epoch, validate, and rank 0 writes the one checkpoint."""
import subprocess
import sys

import torch

import mmidc  # noqa: F401  (weights_only allow-list)
from tests.helpers import REPO, free_port
from tests.helpers.tiny_run import SPLITS, tool_env, write_tiny_config

BATCH_PER_RANK = 4


def test_two_cpu_processes_train_and_save_one_checkpoint(tmp_path):
    config = write_tiny_config(str(tmp_path), max_epochs=1)
    work_dir = tmp_path / 'work'
    env = tool_env()
    env.update(PORT=str(free_port()), PYTHON=sys.executable)
    cmd = ['bash', str(REPO / 'tools' / 'dist_train.sh'), config, '2',
           '--work-dir', str(work_dir),
           '--cfg-options', 'default_hooks.checkpoint.save_best=None']
    result = subprocess.run(cmd, cwd=str(REPO), env=env, capture_output=True,
                            text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert 'Distributed launcher: pytorch' in output
    assert 'Distributed training: True' in output
    assert 'Epoch(val) [1]' in output  # validation gathered over both ranks

    checkpoints = sorted(p.name for p in work_dir.rglob('*.pth'))
    assert checkpoints == ['epoch_1.pth']
    ckpt = torch.load(str(work_dir / 'epoch_1.pth'), map_location='cpu',
                      weights_only=True)
    # 16 training pairs over 2 ranks x 4 per batch: 2 iterations each.
    num_pairs = 2 * len(SPLITS['train'])
    assert ckpt['meta']['iter'] == num_pairs // (2 * BATCH_PER_RANK)
    assert not any(k.startswith('module.') for k in ckpt['state_dict'])
    assert all(torch.isfinite(v).all() for v in ckpt['state_dict'].values()
               if v.is_floating_point())
