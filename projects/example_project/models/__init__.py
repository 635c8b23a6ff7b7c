"""The project's registered components."""
from .gru_caption_head import *  # noqa: F401,F403
