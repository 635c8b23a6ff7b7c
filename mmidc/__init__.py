"""mmidc: image difference captioning (CLIP4IDC) as an MMPretrain plugin."""
from .version import __version__
from . import engine  # noqa: F401  (safe checkpoint loading first)
from . import datasets, evaluation, models  # noqa: F401
from .shipped_projects import install_finder

install_finder()  # `projects.<name>` (custom_imports of the projects' configs)

__all__ = ['__version__']
