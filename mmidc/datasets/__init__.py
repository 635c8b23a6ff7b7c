"""Image-pair data sets and their transforms; the offline preparation of
their files is ``mmidc.datasets.preparation`` (its names are re-exported
here)."""
from . import transforms  # noqa: F401  (registers the transforms)
from .birds_to_words import BirdsToWordsDataset
from .change_caption_karpathy import KarpathyChangeCaptionDataset
from .clevr_change import CLEVRChangeDataset
from .collate import idc_collate
from .dubai_cc import DubaiCCDataset
from .image_editing_request import ImageEditingRequestDataset
from .image_io import read_rgb, resize_rgb
from .image_pair_dataset import CHANGE_TYPES, ImagePairDataset
from .levir_cc import LEVIRCCDataset
from .levir_mci import LEVIRMCIDataset
from .nabirds import NABirdsPairDataset
from .preparation import (HardNegativeGenerator, PairFeatureCache,
                          PairImageCache, build_pair_image_cache,
                          caption_datasets, config_vocab_file,
                          default_cache_dir, default_vocab_file,
                          ensure_vocab_file, load_hard_negatives,
                          model_vocab_files, shard_is_current,
                          training_captions, write_dataset_vocab_file,
                          write_feature_shard)
from .samplers import PairedSceneSampler, RepeatByCaptionsSampler
from .second_cc import SECONDCCDataset
from .spot_the_diff import SpotTheDiffDataset
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
