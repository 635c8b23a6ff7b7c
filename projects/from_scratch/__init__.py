"""CLIP4IDC trained from random weights: the components that let the tiny
model learn on a CPU budget (``projects/from_scratch/README.md``).

``custom_imports = dict(imports=['mmidc', 'projects.from_scratch'])``
registers them in mmidc's registries.
"""
from . import models  # noqa: F401
