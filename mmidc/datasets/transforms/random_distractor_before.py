"""Replace a change pair's before image by the scene's distractor render."""
from mmcv.transforms import BaseTransform

from mmidc.registry import TRANSFORMS
from .sample_rng import sample_rng


@TRANSFORMS.register_module()
class RandomDistractorBefore(BaseTransform):
    """With probability ``prob``, the *before* image of a change pair becomes
    the scene's distractor image (same scene, another viewpoint or lighting,
    no semantic change); the after image and the captions stay.

    The pair (distractor, after) shows the same semantic change as (before,
    after) under a camera or lighting change, so the encoder learns to
    describe the change and ignore the nuisance. The published CLIP4IDC code
    does this with probability 0.5 in its adaptation stage on CLEVR-Change.

    Put it before :class:`LoadImagePair` (it swaps a path). Pairs whose
    ``change_type`` is ``'none'`` (no-change pairs: their after image already
    is the distractor) pass unchanged.

    The draw is the sample's (:func:`sample_rng`): a resumed run swaps what
    the uninterrupted run swapped.

    Required keys: ``img1_path``, ``distractor_path`` (change pairs; e.g.
    ``CLEVRChangeDataset(with_distractor_path=True)``).
    Modified key: ``img1_path``. Added key: ``distractor_before`` (bool).

    Args:
        prob (float): Probability of the swap, in ``[0, 1]``. Default 0.5.
    """

    def __init__(self, prob: float = 0.5):
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f'RandomDistractorBefore.prob must be in '
                             f'[0, 1], got {prob}')
        self.prob = prob

    def transform(self, results: dict) -> dict:
        if results.get('change_type') == 'none':
            results['distractor_before'] = False
            return results
        if 'distractor_path' not in results:
            raise KeyError(
                f'RandomDistractorBefore: pair "{results.get("pair_id")}" has '
                f'no "distractor_path" (use CLEVRChangeDataset with '
                f'with_distractor_path=True)')
        rng = sample_rng(results, 'RandomDistractorBefore')
        swap = bool(rng.random() < self.prob)
        if swap:
            results['img1_path'] = results['distractor_path']
        results['distractor_before'] = swap
        return results

    def __repr__(self) -> str:
        return f'{self.__class__.__name__}(prob={self.prob})'
