"""Projects built on mmidc: recipes whose components live outside the core
package, each in MMPretrain's ``projects/`` layout (a README, ``configs/``,
a ``models`` package of registered components that the configs import with
``custom_imports``).

As in MMPretrain, projects are run from a clone's root (``python
tools/train.py projects/<name>/configs/...``): the working directory is on
``sys.path`` there, and that makes this package importable as
``projects``. The installed ``mmidc`` package knows nothing of it.
"""
