"""A synthetic set written once per session (tests must not modify it)."""
import pytest

from mmidc.synthetic import generate_dataset


@pytest.fixture(scope='session')
def synthetic_size():
    """The session set's image size (small images keep the tests fast)."""
    return (192, 128)


@pytest.fixture(scope='session')
def synthetic_root(tmp_path_factory, synthetic_size):
    root = str(tmp_path_factory.mktemp('synthetic'))
    generate_dataset(root, 40, seed=7, image_size=synthetic_size, workers=2,
                     progress=False)
    return root
