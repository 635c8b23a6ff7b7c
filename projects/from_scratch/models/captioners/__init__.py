"""Captioners: CLIP4IDC's captioner with the recipe's conditioning."""
from .conditioned_captioner import *  # noqa: F401,F403
