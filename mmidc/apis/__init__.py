"""High-level inference API: caption, rank and visualise your own pairs."""
from .base_pair_inferencer import BasePairInferencer
from .idc_inferencer import IDCInferencer
from .idc_retrieval_inferencer import IDCRetrievalInferencer
from .image_loading import (DEFAULT_MAX_PIXELS, ImageDecodeError,
                            ImageInputError, ImageTooLargeError,
                            check_pair_sizes, load_rgb_image)
from .model_loading import init_model, load_weights

__all__ = [
    'BasePairInferencer', 'IDCInferencer', 'IDCRetrievalInferencer', 'DEFAULT_MAX_PIXELS',
    'ImageInputError', 'ImageDecodeError', 'ImageTooLargeError', 'check_pair_sizes',
    'load_rgb_image', 'init_model', 'load_weights'
]
