"""The open_clip glue: building CLIP's towers with open_clip (``towers``)
and loading CLIP weights into them (``weights``)."""
from .towers import *  # noqa: F401,F403
from .weights import *  # noqa: F401,F403
