"""Every way a checkpoint is loaded refuses a pickle payload, even with
``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (which turns off torch's default
``weights_only=True`` wherever it is not passed explicitly), and names a
corrupt file."""
import os
import os.path as osp

import pytest
import torch

import mmidc  # noqa: F401
from tests.helpers.tiny_run import run_train, train_in_process, write_tiny_config


class Payload:
    """Makes the folder ``marker`` when unpickled without weights_only."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (self.marker,)


@pytest.fixture
def payload(tmp_path, monkeypatch):
    """(checkpoint with a payload, marker the payload would create)."""
    monkeypatch.setenv('TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD', '1')
    marker = str(tmp_path / 'payload_ran')
    path = str(tmp_path / 'evil.pth')
    torch.save({'state_dict': {'w': torch.zeros(1)}, 'meta': {},
                'x': Payload(marker)}, path)
    return path, marker


@pytest.fixture(scope='module')
def config(tmp_path_factory, mmengine_on_cpu):
    return write_tiny_config(str(tmp_path_factory.mktemp('load')),
                             max_epochs=1)


def load_with_mmengine(path):
    from mmengine.runner.checkpoint import _load_checkpoint
    return _load_checkpoint(path, map_location='cpu')


def load_into_model(path):
    from mmengine.runner import load_checkpoint  # init_cfg 'Pretrained'
    return load_checkpoint(torch.nn.Linear(1, 1), path, map_location='cpu')


def read_with_mmidc(path):
    from mmidc.utils import read_checkpoint
    return read_checkpoint(path)


@pytest.mark.parametrize('load', [load_with_mmengine, load_into_model,
                                  read_with_mmidc])
def test_payload_refused(payload, load):
    path, marker = payload
    with pytest.raises(ValueError, match=r'evil\.pth.*weights_only=True'):
        load(path)
    assert not osp.exists(marker)


@pytest.mark.parametrize('resume', [True, False], ids=['resume', 'load_from'])
def test_payload_refused_by_the_runner(config, payload, tmp_path, resume):
    path, marker = payload
    with pytest.raises(ValueError, match=r'evil\.pth'):
        train_in_process(config, str(tmp_path / 'work'), resume=resume,
                         cfg_options=dict(load_from=path))
    assert not osp.exists(marker)


def test_payload_refused_by_train_tool_resume(config, payload, tmp_path):
    path, marker = payload
    result = run_train(config, '--work-dir', str(tmp_path / 'work'),
                       '--resume', path,
                       extra_env=dict(TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD='1'))
    assert result.returncode != 0
    assert 'evil.pth' in result.stderr and 'weights_only' in result.stderr
    assert not osp.exists(marker)


def test_every_mmengine_scheme_forces_weights_only(payload):
    from mmengine.runner.checkpoint import CheckpointLoader

    from mmidc.utils import checkpoint_safety
    assert all(getattr(loader, 'forces_weights_only', False)
               for loader in CheckpointLoader._schemes.values())

    def remote_loader(filename, map_location=None):
        return torch.load(filename, map_location=map_location)  # as MMEngine

    path, marker = payload
    with pytest.raises(Exception, match='(?i)weights.only|unsupported'):
        checkpoint_safety._forcing_weights_only(remote_loader)(path)
    assert not osp.exists(marker)


@pytest.mark.parametrize('load', [load_with_mmengine, read_with_mmidc])
def test_corrupt_safetensors_named(tmp_path, load):
    path = tmp_path / 'model.safetensors'
    path.write_bytes(b'\x08\x00\x00\x00\x00\x00\x00\x00{"a":1}')
    with pytest.raises(ValueError, match=r'model\.safetensors'):
        load(str(path))


def test_empty_checkpoint_path_is_explained():
    """What MMEngine's own auto-resume passes for an empty last_checkpoint."""
    with pytest.raises(FileNotFoundError, match='empty.*last_checkpoint'):
        load_with_mmengine('')
