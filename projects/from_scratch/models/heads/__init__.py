"""Heads: the captioner of its own word embeddings and the bag-of-words
auxiliary heads (word presence, word counts)."""
from .scratch_caption_head import *  # noqa: F401,F403
from .bag_of_words_head import *  # noqa: F401,F403
from .bag_of_word_counts_head import *  # noqa: F401,F403
