"""Transforms for image pairs and captions."""
from .load_image_pair import LoadImagePair
from .load_pair_features import LoadPairFeatures
from .pack_idc_inputs import PackIDCInputs
from .random_distractor_before import RandomDistractorBefore
from .resize_pair import ResizePair
from .sample_hard_negatives import SampleHardNegatives
from .sample_rng import sample_rng
from .tokenize_captions import TokenizeCaptions

__all__ = [
    'LoadImagePair', 'LoadPairFeatures', 'ResizePair', 'TokenizeCaptions',
    'PackIDCInputs', 'RandomDistractorBefore', 'SampleHardNegatives',
    'sample_rng'
]
