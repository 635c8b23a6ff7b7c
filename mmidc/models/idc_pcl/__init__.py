"""IDC-PCL (Yao et al., AAAI 2022): image feature encoder, image difference
encoder (F_sing, F_pair), cross-modal transformer (F_cross), and the two
stages' algorithms (pre-training, captioning)."""
from .pair_feature_encoder import *  # noqa: F401,F403
from .difference_feature_encoder import *  # noqa: F401,F403
from .pair_token_embedding import *  # noqa: F401,F403
from .sinusoidal_pair_token_embedding import *  # noqa: F401,F403
from .feature_regression_head import *  # noqa: F401,F403
from .single_image_encoder import *  # noqa: F401,F403
from .pair_encoder import *  # noqa: F401,F403
from .cross_modal_transformer import *  # noqa: F401,F403
from .idc_pcl_pretrainer import *  # noqa: F401,F403
from .idc_pcl_cross_task_pretrainer import *  # noqa: F401,F403
from .idc_pcl_captioner import *  # noqa: F401,F403
