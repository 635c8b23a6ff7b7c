"""The Transformer layers every model builds on (attention, feed-forward,
encoder and decoder layers with pre- or post-norm sub-layers)."""
from .transformer_layers import *  # noqa: F401,F403
