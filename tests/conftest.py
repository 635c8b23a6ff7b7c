import os

import pytest
import torch

# Two cores: keep intra-op threads predictable in tests.
torch.set_num_threads(min(2, os.cpu_count() or 1))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
