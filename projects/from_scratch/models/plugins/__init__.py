"""Backbone plug-ins: patch embeddings and extra token segments."""
from .conv_stem import *  # noqa: F401,F403
from .aligned_difference import *  # noqa: F401,F403
from .difference_segment import *  # noqa: F401,F403
