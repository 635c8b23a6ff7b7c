"""Image-pair data sets and their transforms."""
from . import transforms  # noqa: F401  (registers the transforms)
from .birds_to_words import BirdsToWordsDataset
from .change_caption_karpathy import KarpathyChangeCaptionDataset
from .clevr_change import CLEVRChangeDataset
from .collate import idc_collate
from .dubai_cc import DubaiCCDataset
from .hard_negatives import HardNegativeGenerator, load_hard_negatives
from .image_editing_request import ImageEditingRequestDataset
from .image_io import read_rgb, resize_rgb
from .image_pair_dataset import CHANGE_TYPES, ImagePairDataset
from .levir_cc import LEVIRCCDataset
from .levir_mci import LEVIRMCIDataset
from .nabirds import NABirdsPairDataset
from .pair_feature_cache import PairFeatureCache, write_feature_shard
from .pair_image_cache import (PairImageCache, build_pair_image_cache,
                               default_cache_dir, shard_is_current)
from .samplers import PairedSceneSampler, RepeatByCaptionsSampler
from .second_cc import SECONDCCDataset
from .spot_the_diff import SpotTheDiffDataset
from .vocab_sources import (caption_datasets, config_vocab_file,
                            default_vocab_file, ensure_vocab_file,
                            model_vocab_files, training_captions,
                            write_dataset_vocab_file)
from .transforms import (LoadImagePair, LoadPairFeatures, PackIDCInputs,
                         RandomDistractorBefore, ResizePair,
                         SampleHardNegatives, TokenizeCaptions)
from .whu_cdc import WHUCDCDataset

__all__ = [
    'CHANGE_TYPES', 'ImagePairDataset', 'CLEVRChangeDataset',
    'SpotTheDiffDataset', 'ImageEditingRequestDataset', 'BirdsToWordsDataset',
    'HardNegativeGenerator', 'load_hard_negatives', 'LoadImagePair',
    'LoadPairFeatures', 'ResizePair', 'TokenizeCaptions', 'PackIDCInputs',
    'RandomDistractorBefore', 'SampleHardNegatives', 'PairImageCache',
    'PairFeatureCache', 'write_feature_shard', 'build_pair_image_cache',
    'default_cache_dir', 'shard_is_current', 'read_rgb', 'resize_rgb',
    'transforms', 'PairedSceneSampler', 'RepeatByCaptionsSampler',
    'idc_collate', 'NABirdsPairDataset', 'KarpathyChangeCaptionDataset',
    'LEVIRCCDataset', 'LEVIRMCIDataset', 'WHUCDCDataset', 'SECONDCCDataset',
    'DubaiCCDataset', 'caption_datasets', 'config_vocab_file',
    'default_vocab_file', 'ensure_vocab_file', 'model_vocab_files',
    'training_captions', 'write_dataset_vocab_file'
]
