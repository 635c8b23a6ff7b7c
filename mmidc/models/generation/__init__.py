"""Caption generation: the search over any caption decoder (greedy and beam,
with the key/value cache and logits processors), the captioners' base class
with the one ``predict``."""
from .generation import *  # noqa: F401,F403
from .base_captioner import *  # noqa: F401,F403
