"""Helpers shared by the test modules, imported as ``tests.helpers.*``.

- :mod:`.pair_trees`: tiny data set trees in each loader's layout;
- :mod:`.tiny_run`: a tiny adaptation config and data tree for runner tests;
- :mod:`.tiny_models`: tiny CLIP archs, model configs, checkpoints, pairs;
- :mod:`.idc_pairs`: hand-made predictions and references for the metrics.

Fixtures live in the ``conftest.py`` files.
"""
import contextlib
import importlib.util
import logging
import socket
from functools import lru_cache
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
#: Every config a user runs (bases left out): ``configs/`` and each
#: project's ``configs/``.
CONFIG_FILES = sorted(
    path for root in [REPO / 'configs', *sorted(REPO.glob('projects/*/configs'))]
    for path in root.rglob('*.py') if '_base_' not in path.parts)


@lru_cache(maxsize=None)
def load_tool(relative_path: str) -> ModuleType:
    """Import a script under ``tools/`` (not a package) by its path.

    Args:
        relative_path (str): Path relative to the repository root, e.g.
            ``'tools/caption_pair.py'``.
    """
    path = REPO / relative_path
    name = 'tool_' + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def logged_records():
    """The records MMEngine's current logger emits inside the block (a
    list, filled as they come)."""
    from mmengine.logging import MMLogger
    logger = MMLogger.get_current_instance()
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
