"""PairFeaturePreprocessor: cached pair features batched as they are."""
import pytest
import torch

from mmidc.registry import MODELS


def test_stacks_cached_features_without_normalising():
    pre = MODELS.build(dict(type='PairFeaturePreprocessor'))
    feats = [torch.randn(2, 8, 2, 3).half() for _ in range(3)]  # [2, C, h, w] each
    samples = [object() for _ in feats]
    out = pre(dict(inputs=feats, data_samples=samples))
    assert out['inputs'].shape == (3, 2, 8, 2, 3)
    assert out['inputs'].dtype == torch.float32
    torch.testing.assert_close(out['inputs'], torch.stack(feats).float())  # no mean/std
    assert all(a is b for a, b in zip(out['data_samples'], samples))
    # a batched tensor passes as it is
    batched = torch.randn(2, 2, 8, 2, 3)
    assert torch.equal(pre(dict(inputs=batched))['inputs'], batched)


def test_rejects_mixed_or_unpaired_features():
    pre = MODELS.build(dict(type='PairFeaturePreprocessor'))
    with pytest.raises(ValueError, match='differ in shape'):
        pre(dict(inputs=[torch.randn(2, 8, 2, 3), torch.randn(2, 8, 3, 3)]))
    with pytest.raises(ValueError, match=r'\[B, 2, C, h, w\]'):
        pre(dict(inputs=[torch.randn(3, 8, 2, 3)]))
    with pytest.raises(ValueError, match=r'\[B, 2, C, h, w\]'):
        pre(dict(inputs=torch.randn(2, 2, 8, 6)))
