"""Fixtures for every test (helpers to import: :mod:`tests.helpers`)."""
import copy
import os
import signal

import pytest
import torch

from tests.helpers.tiny_models import TINY_ARCH

# Two cores: keep intra-op threads predictable in tests.
torch.set_num_threads(min(2, os.cpu_count() or 1))


def pytest_collection_modifyitems(config, items):
    """Tests marked ``cuda`` are skipped, with the reason, without a GPU."""
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason='needs a CUDA GPU: torch sees none here')
    for item in items:
        if 'cuda' in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def _sigterm_handler_given_back():
    """A test (a run ending in an exception too) leaves SIGTERM's handler as
    it found it: a process forked later would otherwise inherit the run's."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    after = signal.getsignal(signal.SIGTERM)
    if after != before:
        signal.signal(signal.SIGTERM, before)
        pytest.fail(f'the test left SIGTERM handled by {after!r}')


@pytest.fixture
def tiny_arch():
    """A fresh copy of :data:`tests.helpers.tiny_models.TINY_ARCH`."""
    return copy.deepcopy(TINY_ARCH)


@pytest.fixture
def one_thread():
    """One intra-op thread for the test: tiny tensors run fastest on one, and
    much faster on a busy machine (two threads spin-wait when other processes
    hold the cores). Use with ``pytestmark = pytest.mark.usefixtures(
    'one_thread')``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope='module')
def mmengine_on_cpu():
    """MMEngine's runner trains on the CPU even where a GPU is visible (it
    picks its device once, at import: ``mmengine.device.utils.DEVICE``), so
    that CPU results compare exactly on any machine."""
    import mmengine.device.utils as device_utils
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(device_utils, 'DEVICE', 'cpu')
        yield
