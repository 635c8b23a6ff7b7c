"""``mmidc::`` in a config's ``_base_``: the shipped configs inherited by
their path in the installed package.

MMEngine resolves ``_base_ = ['mmidc::clip4idc/NAME.py']`` to
``<mmidc>/.mim/configs/clip4idc/NAME.py`` for the packages it lists in
``mmengine.config.utils.MODULE2PACKAGE``; :func:`register_config_package`
(run by ``import mmidc``) adds mmidc there. The config is then read by any
program that imports mmidc before reading it: mmidc's ``tools/train.py`` and
``tools/test.py``, ``mim train mmidc``, :mod:`mmidc.apis`. MMEngine finds the
package with ``pkg_resources`` (setuptools < 82; docs/install.md).
"""
from mmengine.config.utils import MODULE2PACKAGE

__all__ = ['register_config_package']


def register_config_package() -> None:
    """Let MMEngine resolve ``mmidc::`` config paths (idempotent)."""
    MODULE2PACKAGE.setdefault('mmidc', 'mmidc')
