"""Models: the layers, the open_clip glue, the data preprocessors, caption
generation (``generation``), necks, heads, losses, and the
algorithms (``clip4idc``, ``idc_pcl``)."""
from .layers import *  # noqa: F401,F403
from .open_clip import *  # noqa: F401,F403
from .data_preprocessors import *  # noqa: F401,F403
from .generation import *  # noqa: F401,F403
from .necks import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
from .clip4idc import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .idc_pcl import *  # noqa: F401,F403
