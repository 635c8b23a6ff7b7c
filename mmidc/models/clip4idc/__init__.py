"""CLIP4IDC: intra/inter CLIP pair encoder, contrastive adaptation, captioner."""
from .open_clip_utils import *  # noqa: F401,F403
from .clip4idc_backbone import *  # noqa: F401,F403
from .clip_text_encoder import *  # noqa: F401,F403
from .pair_data_preprocessor import *  # noqa: F401,F403
from .contrastive_adaptation_head import *  # noqa: F401,F403
from .clip4idc_retriever import *  # noqa: F401,F403
from .caption_vocab import *  # noqa: F401,F403
from .transformer_caption_head import *  # noqa: F401,F403
from .clip4idc_captioner import *  # noqa: F401,F403
