"""Transforms for image pairs and captions."""
from .load_image_pair import LoadImagePair
from .load_pair_features import LoadPairFeatures
from .pack_idc_inputs import PackIDCInputs
from .pair_random_resized_crop import PairRandomResizedCrop, swap_left_right
from .resize_pair import ResizePair
from .sample_hard_negatives import SampleHardNegatives
from .tokenize_captions import TokenizeCaptions

__all__ = [
    'LoadImagePair', 'LoadPairFeatures', 'ResizePair', 'PairRandomResizedCrop',
    'TokenizeCaptions', 'PackIDCInputs', 'SampleHardNegatives',
    'swap_left_right'
]
