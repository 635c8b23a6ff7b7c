"""Offline preparation of a data set's files, run before training: the
pre-resized image cache (``pair_image_cache``) and the cached grid
features (``pair_feature_cache``), FDA's hard negatives
(``hard_negatives``) and the caption vocabulary of a config's data sets
(``vocab_sources``). The readers of what they write (``PairImageCache``,
``PairFeatureCache``, ``load_hard_negatives``) live with them; the
pipeline transforms read through those."""
from .hard_negatives import HardNegativeGenerator, load_hard_negatives
from .pair_feature_cache import PairFeatureCache, write_feature_shard
from .pair_image_cache import (PairImageCache, build_pair_image_cache,
                               default_cache_dir, shard_is_current)
from .vocab_sources import (caption_datasets, config_vocab_file,
                            default_vocab_file, ensure_vocab_file,
                            model_vocab_files, training_captions,
                            write_dataset_vocab_file)

__all__ = [
    'HardNegativeGenerator', 'load_hard_negatives', 'PairFeatureCache',
    'write_feature_shard', 'PairImageCache', 'build_pair_image_cache',
    'default_cache_dir', 'shard_is_current', 'caption_datasets',
    'config_vocab_file', 'default_vocab_file', 'ensure_vocab_file',
    'model_vocab_files', 'training_captions', 'write_dataset_vocab_file'
]
