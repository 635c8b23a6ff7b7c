"""CLIP4IDC: the intra/inter CLIP pair encoder, the CLIP text encoder, and
the two stages' algorithms (contrastive adaptation, captioning)."""
from .clip4idc_backbone import *  # noqa: F401,F403
from .clip_text_encoder import *  # noqa: F401,F403
from .clip4idc_retriever import *  # noqa: F401,F403
from .clip4idc_captioner import *  # noqa: F401,F403
