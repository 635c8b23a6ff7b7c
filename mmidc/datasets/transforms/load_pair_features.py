"""Load cached grid features of both images of a pair."""
from mmcv.transforms import BaseTransform

from mmidc.registry import TRANSFORMS
from ..preparation.pair_feature_cache import PairFeatureCache


@TRANSFORMS.register_module()
class LoadPairFeatures(BaseTransform):
    """Read the cached features of ``img1_path`` and ``img2_path`` into
    ``img1`` / ``img2`` (float32 ``[h, w, C]``), in place of the images.

    ``PackIDCInputs`` then packs them as ``[2, C, h, w]``, the model's data
    preprocessor must be ``PairFeaturePreprocessor`` and its
    ``PairFeatureEncoder`` has ``backbone=None``. An image missing from the
    cache is a ``KeyError`` naming it. The cache is written by
    ``tools/dataset_converters/extract_pair_features.py``.

    Required keys: ``img1_path``, ``img2_path``. Added keys: ``img1``,
    ``img2``, ``ori_shape``.

    Args:
        cache_dir (str): The feature cache folder.
    """

    def __init__(self, cache_dir: str):
        self.cache = PairFeatureCache(cache_dir)

    def transform(self, results: dict) -> dict:
        results['img1'] = self.cache.get(results['img1_path'])
        results['img2'] = self.cache.get(results['img2_path'])
        results['ori_shape'] = (results['img1'].shape[:2],
                                results['img2'].shape[:2])
        return results

    def __repr__(self) -> str:
        return f'{self.__class__.__name__}(cache_dir={self.cache.cache_dir!r})'
