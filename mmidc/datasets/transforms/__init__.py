"""Transforms for image pairs and captions."""
from .load_image_pair import LoadImagePair
from .pack_idc_inputs import PackIDCInputs
from .random_distractor_before import RandomDistractorBefore
from .resize_pair import ResizePair
from .tokenize_captions import TokenizeCaptions

__all__ = [
    'LoadImagePair', 'ResizePair', 'TokenizeCaptions', 'PackIDCInputs',
    'RandomDistractorBefore'
]
