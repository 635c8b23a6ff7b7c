"""Necks: summary tokens of the pair encoder's output."""
from .change_summary_neck import *  # noqa: F401,F403
