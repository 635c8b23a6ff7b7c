import pytest
import torch
from mmpretrain.structures import DataSample
from torch.testing import assert_close

from mmidc.models.data_preprocessors.idc_data_preprocessor import (
    CLIP_MEAN, CLIP_STD, IDCDataPreprocessor)
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


def _samples(lengths=(5, 5, 7)):
    samples = []
    for i, n in enumerate(lengths):
        ds = DataSample(metainfo=dict(pair_id=str(i)))
        ds.set_field(torch.arange(n) + 10 * i, 'text_tokens')
        ds.set_field(torch.full((2, 3), float(i)), 'weights')
        samples.append(ds)
    return samples


def test_data_samples_cross_in_one_copy_per_dtype():
    """Moved to another device (``meta`` stands in for a GPU here), every
    sample's tensors are views of one buffer per dtype, with their shapes,
    and the metainfo is kept."""
    pre = IDCDataPreprocessor()
    pre._device = torch.device('meta')
    samples = _samples()
    moved = pre.samples_to_device(samples)
    assert [ds.pair_id for ds in moved] == ['0', '1', '2']
    for before, after in zip(samples, moved):
        for key in ('text_tokens', 'weights'):
            assert after.get(key).device.type == 'meta'
            assert after.get(key).shape == before.get(key).shape
            assert after.get(key).dtype == before.get(key).dtype
    # one int64 buffer and one float buffer
    assert len({id(ds.text_tokens._base) for ds in moved}) == 1
    assert len({id(ds.weights._base) for ds in moved}) == 1
    assert samples[0].text_tokens.device.type == 'cpu'  # inputs left alone


@pytest.mark.cuda
def test_cuda_output_equals_the_cpu_output():
    pairs = [torch.randint(0, 256, (2, 3, 8, 12), dtype=torch.uint8)
             for _ in range(3)]
    samples = _samples()
    cpu = IDCDataPreprocessor()(dict(inputs=pairs, data_samples=samples))
    pre = IDCDataPreprocessor().cuda()
    for inputs in (pairs, torch.stack(pairs).pin_memory()):  # list, pinned batch
        out = pre(dict(inputs=inputs, data_samples=samples))
        assert out['inputs'].is_cuda
        torch.testing.assert_close(out['inputs'].cpu(), cpu['inputs'], rtol=0, atol=0)
        for a, b in zip(out['data_samples'], samples):
            assert a.text_tokens.is_cuda and torch.equal(a.text_tokens.cpu(), b.text_tokens)
            assert torch.equal(a.weights.cpu(), b.weights)
