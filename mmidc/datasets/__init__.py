"""Image-pair data sets and their transforms."""
from . import transforms  # noqa: F401  (registers the transforms)
from .clevr_change import CLEVRChangeDataset
from .collate import idc_collate
from .image_editing_request import ImageEditingRequestDataset
from .image_io import read_rgb, resize_rgb
from .image_pair_dataset import CHANGE_TYPES, ImagePairDataset
from .loader_setup import (auto_num_workers, resolve_loader_defaults,
                           use_image_cache)
from .pair_image_cache import (PairImageCache, build_pair_image_cache,
                               default_cache_dir, shard_is_current)
from .samplers import PairedSceneSampler, RepeatByCaptionsSampler
from .spot_the_diff import SpotTheDiffDataset
from .transforms import (LoadImagePair, PackIDCInputs, RandomDistractorBefore,
                         ResizePair, TokenizeCaptions)

__all__ = [
    'CHANGE_TYPES', 'ImagePairDataset', 'CLEVRChangeDataset',
    'SpotTheDiffDataset', 'ImageEditingRequestDataset', 'LoadImagePair',
    'ResizePair', 'TokenizeCaptions', 'PackIDCInputs', 'RandomDistractorBefore',
    'PairImageCache', 'build_pair_image_cache', 'default_cache_dir',
    'shard_is_current', 'read_rgb', 'resize_rgb', 'transforms',
    'PairedSceneSampler', 'RepeatByCaptionsSampler', 'idc_collate',
    'auto_num_workers', 'resolve_loader_defaults', 'use_image_cache'
]
