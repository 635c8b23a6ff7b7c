"""Heads: contrastive adaptation and captioning."""
from .contrastive_adaptation_head import *  # noqa: F401,F403
from .base_caption_head import *  # noqa: F401,F403
from .transformer_caption_head import *  # noqa: F401,F403
