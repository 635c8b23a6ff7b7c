"""Necks between a pair encoder and its heads."""
from .pair_pooling import *  # noqa: F401,F403
