"""mmidc.version: one PEP 440 version, the package's."""
from packaging.version import Version

import mmidc
from mmidc.version import __version__


def test_version_is_pep440_and_the_packages():
    assert str(Version(__version__)) == __version__  # already normalised
    assert mmidc.__version__ == __version__
