"""Projects built on mmidc: recipes whose components live outside the core
package, each in MMPretrain's ``projects/`` layout (a README, ``configs/``,
a ``models`` package of registered components that the configs import with
``custom_imports``).

``import mmidc`` makes this package importable as ``projects`` wherever mmidc
is installed (:mod:`mmidc.shipped_projects`).
"""
