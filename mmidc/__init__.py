"""mmidc: image difference captioning (CLIP4IDC) as an MMPretrain plugin."""
from .version import __version__
from . import utils  # noqa: F401  (safe checkpoint loading first)
from . import engine  # noqa: F401
from . import datasets, evaluation, models  # noqa: F401
from .config_package import register_config_package

register_config_package()  # `_base_ = ['mmidc::clip4idc/NAME.py']`

__all__ = ['__version__']
