"""The ground floor: checkpoint reading, which every room that opens a weight
file shares (the caption vocabulary, the models, the inferencers, the
runner's loaders). Imports nothing of mmidc.

Importing it makes MMEngine checkpoints load with
``torch.load(weights_only=True)`` (:mod:`.checkpoint_safety`); ``import
mmidc`` imports it first.
"""
from .checkpoint_safety import *  # noqa: F401,F403  (first: the allow-list)
from .checkpoint_io import *  # noqa: F401,F403
from .checkpoint_pattern import *  # noqa: F401,F403
from .config_placeholders import *  # noqa: F401,F403
