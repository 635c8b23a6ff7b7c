"""A run whose loss turns NaN stops with an error naming the iteration, and
no checkpoint of a non-finite model is ever written (as latest or best);
the hook itself: tests/test_engine/test_nonfinite_loss_hook.py."""
import glob
import os.path as osp

import pytest
import torch

import mmidc  # noqa: F401
from tests.helpers.tiny_run import train_in_process, write_tiny_config


def all_finite(path):
    state = torch.load(path, map_location='cpu', weights_only=True)
    return all(bool(torch.isfinite(v).all())
               for v in state['state_dict'].values() if v.is_floating_point())


def test_training_stops_at_a_nan_loss(tmp_path, mmengine_on_cpu):
    config = write_tiny_config(str(tmp_path), max_epochs=3)
    work_dir = str(tmp_path / 'work')
    from mmidc.engine import NonFiniteLossError
    with pytest.raises(NonFiniteLossError,
                       match=r'NaN or infinite at iteration \d+ .*lr'):
        train_in_process(config, work_dir, cfg_options={
            'optim_wrapper.optimizer.lr': 1e6,
            'param_scheduler': None})
    for path in glob.glob(osp.join(work_dir, '*.pth')):
        assert all_finite(path), path
