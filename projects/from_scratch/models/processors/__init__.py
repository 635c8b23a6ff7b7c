"""Score edits of the search (``logits_processors``): the auxiliary heads'
word priors."""
from .word_prior import *  # noqa: F401,F403
from .counted_word_prior import *  # noqa: F401,F403
