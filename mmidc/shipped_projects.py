"""The projects shipped with mmidc, importable as ``projects.<name>``.

A project (``projects/<name>/`` in the repository, MMPretrain's layout) is a
package of registered components that its configs import with
``custom_imports = dict(imports=['mmidc', 'projects.<name>'])``. setup.py
ships ``projects/`` in ``mmidc/.mim`` (copied into a wheel, linked by an
editable install). Importing mmidc (the first of those imports) adds an
import finder for the top-level name ``projects`` that resolves it to that
folder, or to the checkout's ``projects/`` next to the ``mmidc`` package, so
that the configs load from any working directory, with no ``PYTHONPATH``:
``tools/train.py``, ``mim train mmidc``, MMEngine's ``Runner.from_cfg`` and
MMPretrain's own tools alike. It takes nothing from other code: folders named
``projects`` without ``__init__.py`` elsewhere on ``sys.path`` (the layout of
other OpenMMLab repositories' projects) stay importable as parts of the same
package, and a regular ``projects`` package elsewhere on the path wins over
mmidc's.

The core package imports nothing from ``projects``; it only finds it.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os.path as osp
import sys
from typing import Optional

__all__ = ['PACKAGE', 'projects_dir', 'install_finder']

#: The top-level name of the shipped projects.
PACKAGE = 'projects'
_MMIDC = osp.dirname(osp.abspath(__file__))


def projects_dir(mmidc_dir: str = _MMIDC) -> Optional[str]:
    """The folder of the shipped projects: ``mmidc/.mim/projects`` (an
    install), else ``projects/`` of the checkout that holds ``mmidc_dir``
    (next to its ``setup.py``); None when there is neither."""
    shipped = osp.join(mmidc_dir, '.mim', PACKAGE)
    checkout = osp.dirname(mmidc_dir)
    candidates = [shipped]
    if osp.isfile(osp.join(checkout, 'setup.py')):
        candidates.append(osp.join(checkout, PACKAGE))
    for folder in candidates:
        if osp.isfile(osp.join(folder, '__init__.py')):
            return folder
    return None


class ProjectsFinder(importlib.abc.MetaPathFinder):
    """Finds the top-level package :data:`PACKAGE` in :func:`projects_dir`;
    its subpackages are found in that folder, then in the namespace folders
    of the same name on ``sys.path``."""

    def __init__(self, folder: str):
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname != PACKAGE:
            return None
        ours = osp.realpath(self.folder)
        other = importlib.machinery.PathFinder.find_spec(PACKAGE, sys.path)
        found = list(other.submodule_search_locations or []) if other else []
        if other is not None and other.origin not in (None, 'namespace') \
                and osp.realpath(osp.dirname(other.origin)) != ours:
            return None  # a regular `projects` package of someone else's
        # ours first, then the namespace portions found on the path
        locations = [self.folder] + [
            p for p in found if osp.realpath(p) != ours]
        return importlib.util.spec_from_file_location(
            PACKAGE, osp.join(self.folder, '__init__.py'),
            submodule_search_locations=locations)


def install_finder() -> Optional[ProjectsFinder]:
    """Put a :class:`ProjectsFinder` first in ``sys.meta_path`` (once), so
    that a namespace ``projects`` folder elsewhere on the path (e.g. in the
    working directory) does not hide mmidc's but joins it. Returns it (None
    without projects)."""
    for finder in sys.meta_path:
        if isinstance(finder, ProjectsFinder):
            return finder
    folder = projects_dir()
    if folder is None:
        return None
    finder = ProjectsFinder(folder)
    sys.meta_path.insert(0, finder)
    return finder
