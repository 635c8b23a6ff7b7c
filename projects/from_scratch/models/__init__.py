"""The recipe's components: backbone plug-ins, a neck and two heads."""
from .plugins import *  # noqa: F401,F403
from .necks import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
