import pytest


@pytest.fixture(autouse=True)
def _tiny_tensors_one_thread(one_thread):
    """Tiny tensors: one intra-op thread is faster (the shared fixture)."""
    yield
