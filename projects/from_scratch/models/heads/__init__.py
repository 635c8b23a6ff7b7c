"""Heads: the captioner of its own word embeddings and the bag-of-words
auxiliary head."""
from .transformer_caption_head import *  # noqa: F401,F403
from .bag_of_words_head import *  # noqa: F401,F403
