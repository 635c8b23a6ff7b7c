"""CLIP4IDC: the intra/inter CLIP pair encoder, the CLIP text encoder,
the two stages' algorithms (contrastive adaptation, captioning) and the
initializers of the pair encoder's inter-image parameters."""
from .clip4idc_backbone import *  # noqa: F401,F403
from .clip_text_encoder import *  # noqa: F401,F403
from .clip4idc_retriever import *  # noqa: F401,F403
from .clip4idc_captioner import *  # noqa: F401,F403
from .tiled_position_init import *  # noqa: F401,F403
from .width_scaled_normal_init import *  # noqa: F401,F403
