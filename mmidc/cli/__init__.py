"""The training, test and captioning commands (``tools/train.py``,
``tools/test.py``, ``tools/caption_pair.py``; ``python -m mmidc.cli.train`` /
``.test`` / ``.caption_pair`` from anywhere).

Run from a clone's root, a config may import a project's components
(``custom_imports = dict(imports=['mmidc', 'projects.<name>'])``): the
commands put the working directory first on ``sys.path``, as ``python -m``
does, so that ``projects`` is found there.
"""
import os
import sys

__all__ = ['working_dir_on_path']


def working_dir_on_path() -> None:
    """Put the working directory first on ``sys.path`` (where ``python -m``
    puts it), so that a config run from a clone's root imports
    ``projects.<name>`` from there."""
    cwd = os.getcwd()
    if cwd not in sys.path and '' not in sys.path:
        sys.path.insert(0, cwd)
