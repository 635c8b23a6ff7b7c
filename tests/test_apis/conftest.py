"""Fixtures of the inference tests: tiny model files and an image pair."""
import pytest
import torch
from PIL import Image

from tests.helpers.tiny_models import (captioner_cfg, retriever_cfg,
                                       save_checkpoint, square_pair,
                                       write_config)


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Every inference test runs on one thread (tests/conftest.py)."""


@pytest.fixture(scope='session')
def captioner_files(tmp_path_factory):
    """(config path, checkpoint path) of a tiny random captioner."""
    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    folder = tmp_path_factory.mktemp('captioner')
    torch.manual_seed(0)
    model = MODELS.build(captioner_cfg()['model'])
    return (write_config(captioner_cfg(), folder / 'captioner.py'),
            save_checkpoint(model, folder / 'captioner.pth'))


@pytest.fixture(scope='module')
def captioner(captioner_files):
    """An IDCInferencer of the tiny captioner, on the CPU."""
    from mmidc.apis import IDCInferencer
    return IDCInferencer(*captioner_files, device='cpu')


@pytest.fixture(scope='session')
def retriever_files(tmp_path_factory):
    """(config path, checkpoint path) of a tiny random retriever."""
    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    folder = tmp_path_factory.mktemp('retriever')
    torch.manual_seed(0)
    model = MODELS.build(retriever_cfg()['model'])
    return (write_config(retriever_cfg(), folder / 'retriever.py'),
            save_checkpoint(model, folder / 'retriever.pth'))


@pytest.fixture
def pair_files(tmp_path):
    """Two PNG files of a square-changes-colour pair."""
    before, after, _ = square_pair(size=48)
    paths = tmp_path / 'before.png', tmp_path / 'after.png'
    Image.fromarray(before).save(paths[0])
    Image.fromarray(after).save(paths[1])
    return str(paths[0]), str(paths[1])
