"""A template project: one registered caption head (``GRUCaptionHead``)
and a config that composes it with a shipped one
(``projects/example_project/README.md``).

``custom_imports = dict(imports=['mmidc', 'projects.example_project'])``
registers it in mmidc's registries.
"""
from . import models  # noqa: F401
