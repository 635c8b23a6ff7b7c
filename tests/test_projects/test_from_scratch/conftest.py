"""Fixtures of the from-scratch project's tests: its components registered
(what the custom_imports of the project's configs do), the model tests'
tiny CLIP, one intra-op thread per test."""
import pytest

import mmidc  # noqa: F401  (makes `projects` importable)
import projects.from_scratch  # noqa: F401  (registers the components)
from tests.test_models.conftest import tiny_clip  # noqa: F401


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Tiny tensors: see the root conftest's ``one_thread``."""
