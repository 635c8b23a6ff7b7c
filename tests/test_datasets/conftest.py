"""Tiny data set trees, written once per session (tests must not modify
them: tests that break a tree make their own copy with ``fresh_*``)."""
import pytest
from mmengine.registry import init_default_scope

from tests.helpers import pair_trees


@pytest.fixture(scope='session', autouse=True)
def _mmidc_scope():
    import mmidc  # noqa: F401  (registers everything)
    init_default_scope('mmidc')


@pytest.fixture(scope='session')
def clevr_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('clevr_change'))
    pair_trees.make_clevr_change_tree(root)
    return root


@pytest.fixture
def fresh_clevr_root(tmp_path):
    root = str(tmp_path / 'clevr_change')
    pair_trees.make_clevr_change_tree(root)
    return root


@pytest.fixture(scope='session')
def spot_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('spot_the_diff'))
    pair_trees.make_spot_the_diff_tree(root)
    return root


@pytest.fixture(scope='session')
def ier_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('ier'))
    pair_trees.make_ier_tree(root)
    return root
