"""The recipe's components: backbone plug-ins, a neck, two auxiliary heads
and a caption head, the captioner that conditions its head on them, and the
auxiliary heads' word priors as logits processors of the search."""
from .plugins import *  # noqa: F401,F403
from .necks import *  # noqa: F401,F403
from .processors import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
from .captioners import *  # noqa: F401,F403
