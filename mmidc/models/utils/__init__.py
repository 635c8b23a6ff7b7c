"""Caption generation, the captioners' base and what the captioners read
from a batch (to join a ``mmidc.models.generation`` folder). The layers are
:mod:`mmidc.models.layers`, the open_clip glue :mod:`mmidc.models.open_clip`,
the data preprocessors :mod:`mmidc.models.data_preprocessors`, checkpoint
reading :mod:`mmidc.utils`."""
from .caption_batch import *  # noqa: F401,F403
from .generation import *  # noqa: F401,F403
from .base_captioner import *  # noqa: F401,F403
