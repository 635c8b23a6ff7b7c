import pytest
import torch
from mmpretrain.structures import DataSample
from torch.testing import assert_close

from mmidc.models.utils import IDCDataPreprocessor
from mmidc.models.utils.data_preprocessor import CLIP_MEAN, CLIP_STD
from mmidc.registry import MODELS


def _expected(pairs):
    mean = torch.tensor(CLIP_MEAN).view(1, 1, 3, 1, 1)
    std = torch.tensor(CLIP_STD).view(1, 1, 3, 1, 1)
    return (torch.stack(pairs).float() - mean) / std


def test_stacks_and_normalises_a_list():
    pre = MODELS.build(dict(type='IDCDataPreprocessor'))
    pairs = [torch.randint(0, 256, (2, 3, 8, 12), dtype=torch.uint8)
             for _ in range(3)]
    samples = [DataSample().set_field(torch.arange(5), 'text_tokens')
               for _ in range(3)]
    out = pre(dict(inputs=pairs, data_samples=samples))
    assert out['inputs'].shape == (3, 2, 3, 8, 12)
    assert out['inputs'].dtype == torch.float32
    assert_close(out['inputs'], _expected(pairs))
    assert out['data_samples'] is not None and len(out['data_samples']) == 3


def test_accepts_a_stacked_tensor_and_custom_stats():
    pre = IDCDataPreprocessor(mean=(0, 0, 0), std=(255, 255, 255),
                              bgr_to_rgb=True)
    batch = torch.randint(0, 256, (2, 2, 3, 4, 4), dtype=torch.uint8)
    out = pre(dict(inputs=batch))
    assert_close(out['inputs'], batch.flip(2).float() / 255)
    assert out['data_samples'] is None


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match='mean and std'):
        IDCDataPreprocessor(mean=(1, 2))
    pre = IDCDataPreprocessor()
    with pytest.raises(ValueError, match=r'\[B, 2, 3, H, W\]'):
        pre(dict(inputs=[torch.zeros(3, 4, 4, dtype=torch.uint8)]))
    with pytest.raises(ValueError, match='differ in shape'):
        pre(dict(inputs=[torch.zeros(2, 3, 4, 4), torch.zeros(2, 3, 4, 6)]))
