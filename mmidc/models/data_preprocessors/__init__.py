"""The data preprocessors: image pairs to CLIP-normalised float batches
(``IDCDataPreprocessor``) and cached pair features batched as they are
(``PairFeaturePreprocessor``), and a batch's caption tokens
(``stack_text_tokens``)."""
from .caption_tokens import *  # noqa: F401,F403
from .idc_data_preprocessor import *  # noqa: F401,F403
from .pair_feature_preprocessor import *  # noqa: F401,F403
