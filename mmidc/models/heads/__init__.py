"""Heads: contrastive adaptation, captioning, auxiliary objectives."""
from .contrastive_adaptation_head import *  # noqa: F401,F403
from .base_caption_head import *  # noqa: F401,F403
from .transformer_caption_head import *  # noqa: F401,F403
from .bert_caption_head import *  # noqa: F401,F403
from .bag_of_words_head import *  # noqa: F401,F403
