"""Reusable model parts: open_clip glue, the Transformer layers, caption
generation and the captioners' base, the pair data preprocessor, checkpoint
reading and paths. The caption vocabulary and the tokenizer are in
:mod:`mmidc.text`."""
from .open_clip_utils import *  # noqa: F401,F403
from .caption_batch import *  # noqa: F401,F403
from .generation import *  # noqa: F401,F403
from .transformer_layers import *  # noqa: F401,F403
from .base_captioner import *  # noqa: F401,F403
from .segments import *  # noqa: F401,F403
from .data_preprocessor import *  # noqa: F401,F403
