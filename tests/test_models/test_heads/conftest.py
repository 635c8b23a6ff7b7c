"""Shared fixtures of the head tests."""
import pytest


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Every head test runs on one intra-op thread (tiny tensors: see the
    root conftest's ``one_thread``)."""
