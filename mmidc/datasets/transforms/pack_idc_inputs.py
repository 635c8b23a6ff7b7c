"""Pack a loaded pair into ``inputs`` and a ``DataSample``."""
from typing import Sequence

import numpy as np
import torch
from mmcv.transforms import BaseTransform
from mmpretrain.structures import DataSample

from mmidc.registry import TRANSFORMS


@TRANSFORMS.register_module()
class PackIDCInputs(BaseTransform):
    """Pack a pair as ``{'inputs': uint8 [2, 3, H, W], 'data_samples'}``.

    ``inputs[0]`` is the before image, ``inputs[1]`` the after image, not
    normalised (the model's data preprocessor does that). The
    :class:`~mmpretrain.structures.DataSample` carries ``pair_id``,
    ``change_type`` and ``gt_captions`` (and the other ``meta_keys`` found)
    as metainfo, and ``text_tokens`` and ``ref_tokens`` as data fields when
    present.

    Args:
        meta_keys (Sequence[str]): Keys copied into the metainfo when
            present. ``pair_id``, ``change_type`` and ``gt_captions`` are
            always required. Defaults to the contract keys plus image paths
            and shapes.
    """

    REQUIRED_KEYS = ('pair_id', 'change_type', 'gt_captions')

    def __init__(self,
                 meta_keys: Sequence[str] = ('pair_id', 'change_type',
                                             'gt_captions', 'img1_path',
                                             'img2_path', 'ori_shape',
                                             'img_shape')):
        self.meta_keys = tuple(meta_keys)

    def transform(self, results: dict) -> dict:
        img1, img2 = results['img1'], results['img2']
        if img1.shape != img2.shape:
            raise ValueError(
                f'PackIDCInputs: pair "{results.get("pair_id")}" has images '
                f'of shapes {img1.shape} and {img2.shape}; put ResizePair '
                'before packing')
        pair = np.stack([img1, img2])  # [2, H, W, 3]
        inputs = torch.from_numpy(pair).permute(0, 3, 1, 2)  # [2, 3, H, W]

        data_sample = DataSample()
        for key in self.REQUIRED_KEYS:
            if key not in results:
                raise KeyError(f'PackIDCInputs: sample has no "{key}"')
        data_sample.set_metainfo(
            {k: results[k] for k in self.meta_keys if k in results})
        for key in ('text_tokens', 'ref_tokens'):
            if key in results:
                data_sample.set_field(results[key], key)
        return dict(inputs=inputs.contiguous(), data_samples=data_sample)

    def __repr__(self) -> str:
        return f'{self.__class__.__name__}(meta_keys={self.meta_keys})'
