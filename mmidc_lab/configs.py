"""Where the lab finds configs: the configs shipped with the installed mmidc
package (MMEngine's ``mmidc::`` names, e.g. ``mmidc::clip4idc/NAME.py``) and
a project's configs (the ``configs/`` folder of ``projects.<name>``, imported
from the working directory, a clone's root; named
``projects.<name>::FILE.py`` in the lab's tables)."""
import importlib
import os.path as osp

from mmengine.config.utils import _get_package_and_cfg_path

import mmidc  # noqa: F401  (registers ``mmidc::`` with MMEngine)

__all__ = ['core_config', 'project_config', 'config_file', 'config_label']

PROJECT_PREFIX = 'projects.'


def core_config(name: str) -> str:
    """The path of a config shipped with the installed package.

    ``mmidc::clip4idc/NAME.py`` is ``<mmidc>/.mim/configs/clip4idc/NAME.py``,
    as MMEngine resolves ``mmidc::`` in a config's ``_base_``. The package is
    located by importing it (MMEngine's ``get_installed_path`` needs
    ``pkg_resources``, which recent setuptools lack). Imported from a clone
    that has no ``mmidc/.mim`` links (it never had an editable install), it
    is the clone's own ``configs/NAME``, where those links point.

    Args:
        name (str): ``'mmidc::<folder>/<file>.py'``.

    Returns:
        str: The config file.

    Raises:
        FileNotFoundError: The package ships no such config.
    """
    package, relative = _get_package_and_cfg_path(name)
    root = osp.dirname(importlib.import_module(package).__file__)
    path = osp.join(root, '.mim', 'configs', relative)
    if not osp.isfile(path):
        # the package imported from a clone without an editable install's
        # links (no .mim there): the clone's own configs/, where the links
        # would point, never an installed copy that the clone's edits miss
        source = osp.join(osp.dirname(root), 'configs', relative)
        if osp.isfile(osp.join(osp.dirname(root), 'setup.py')) and \
                osp.isfile(source):
            return source
    if not osp.isfile(path):
        raise FileNotFoundError(f'{name}: no {path} (is {package} installed '
                                'with its configs? pip install -e .)')
    return path


def project_config(project: str, name: str) -> str:
    """The path of a config of ``projects.<project>``.

    Args:
        project (str): The project's package name, e.g. ``'from_scratch'``.
        name (str): The file under its ``configs/``.

    Returns:
        str: The config file.

    Raises:
        FileNotFoundError: The project has no such config.
    """
    package = importlib.import_module(f'projects.{project}')
    path = osp.join(osp.dirname(package.__file__), 'configs', name)
    if not osp.isfile(path):
        raise FileNotFoundError(f'projects.{project} has no config {name} '
                                f'({path})')
    return path


def config_file(name: str) -> str:
    """The path of a config named ``mmidc::FILE.py`` (shipped,
    :func:`core_config`) or ``projects.<name>::FILE.py`` (a project's,
    :func:`project_config`).

    Raises:
        ValueError: ``name`` is neither.
    """
    package, sep, relative = name.partition('::')
    if sep and package.startswith(PROJECT_PREFIX):
        return project_config(package[len(PROJECT_PREFIX):], relative)
    if sep and package == 'mmidc':
        return core_config(name)
    raise ValueError(f'{name}: not a config name mmidc::FILE.py or '
                     'projects.<name>::FILE.py')


def config_label(path: str) -> str:
    """A config's name in tables and records: its path relative to the
    working directory (a clone's root: ``configs/...``, ``projects/...``),
    links resolved, where it lies below it; else the path."""
    relative = osp.relpath(osp.realpath(path))
    return path if relative.startswith('..') else relative
