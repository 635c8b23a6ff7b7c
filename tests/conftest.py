"""Fixtures for every test (helpers to import: :mod:`tests.helpers`)."""
import copy
import os

import pytest
import torch

from tests.helpers.tiny_models import TINY_ARCH

# Two cores: keep intra-op threads predictable in tests.
torch.set_num_threads(min(2, os.cpu_count() or 1))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


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
