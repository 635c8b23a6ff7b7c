"""Fixtures of the from-scratch project's tests: its components registered
(what the custom_imports of the project's configs do), the model tests'
tiny CLIP, one intra-op thread per test."""
import pytest
import torch

import mmidc  # noqa: F401  (registries; `projects` is found from the clone root)
import projects.from_scratch  # noqa: F401  (registers the components)
from tests.test_models.conftest import tiny_clip  # noqa: F401


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Tiny tensors: see the root conftest's ``one_thread``."""


def fit_words(head, summary, refs, steps: int = 20):
    """``loss_words`` of a word head on one batch before and after
    ``steps`` Adam steps (lr 0.05) on it."""
    opt = torch.optim.Adam(head.parameters(), lr=0.05)
    first = head.loss(head(summary), refs)['loss_words'].item()
    for _ in range(steps):
        opt.zero_grad()
        head.loss(head(summary), refs)['loss_words'].backward()
        opt.step()
    return first, head.loss(head(summary), refs)['loss_words'].item()


@pytest.fixture
def words_fit():
    """:func:`fit_words`: a word head's loss before and after fitting one
    batch."""
    return fit_words
