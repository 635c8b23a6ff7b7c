"""mmidc.datasets.collate: idc_collate stacks the pairs of a batch."""
import torch
from mmengine.registry import FUNCTIONS
from mmpretrain.structures import DataSample

from mmidc.datasets import idc_collate


def test_idc_collate_stacks_equal_shapes():
    assert FUNCTIONS.get('idc_collate') is idc_collate  # what the Runner looks up
    samples = [dict(inputs=torch.full((2, 3, 4, 5), i, dtype=torch.uint8),
                    data_samples=DataSample()) for i in range(3)]
    batch = idc_collate(samples)
    assert batch['inputs'].shape == (3, 2, 3, 4, 5)
    assert torch.equal(batch['inputs'][2], samples[2]['inputs'])
    assert len(batch['data_samples']) == 3
    mixed = samples[:2] + [dict(inputs=torch.zeros(2, 3, 4, 6, dtype=torch.uint8),
                                data_samples=DataSample())]
    assert isinstance(idc_collate(mixed)['inputs'], list)  # kept: the preprocessor says why
