"""Batches cached pair features (no image normalisation)."""
import torch
from mmengine.model import BaseDataPreprocessor

from mmidc.registry import MODELS

__all__ = ['PairFeaturePreprocessor']


@MODELS.register_module()
class PairFeaturePreprocessor(BaseDataPreprocessor):
    """Stack cached features ``[2, C, h, w]`` (``LoadPairFeatures`` +
    ``PackIDCInputs``) into float ``[B, 2, C, h, w]`` on the model's device;
    ``data_samples`` pass through. The image counterpart is
    :class:`IDCDataPreprocessor`.

    Args:
        non_blocking (bool): Asynchronous host-to-device copies.
    """

    def forward(self, data: dict, training: bool = False) -> dict:
        data = self.cast_data(data)
        inputs = data['inputs']
        if isinstance(inputs, (list, tuple)):
            shapes = {tuple(x.shape) for x in inputs}
            if len(shapes) != 1:
                raise ValueError(f'cached features of one batch differ in '
                                 f'shape: {sorted(shapes)}')
            inputs = torch.stack(list(inputs))  # [B, 2, C, h, w]
        if inputs.ndim != 5 or inputs.shape[1] != 2:
            raise ValueError(f'inputs must be [B, 2, C, h, w] feature pairs, '
                             f'got {tuple(inputs.shape)}')
        return dict(inputs=inputs.float(), data_samples=data.get('data_samples'))
