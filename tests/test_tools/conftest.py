import pytest


@pytest.fixture
def files(tmp_path):
    """A config and a checkpoint that exist (the launch scripts' checks)."""
    config, checkpoint = tmp_path / 'x.py', tmp_path / 'ckpt.pth'
    config.write_text('')
    checkpoint.write_bytes(b'')
    return str(config), str(checkpoint)
