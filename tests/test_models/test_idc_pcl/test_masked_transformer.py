"""MaskedTransformer: pre-norm layers with an attention mask and a cache."""
import pytest
import torch

from mmidc.models.idc_pcl.masked_transformer import MaskedTransformer


def tiny():
    torch.manual_seed(0)
    return MaskedTransformer(dim=8, num_layers=2, num_heads=2).eval()


def test_shape_and_layers():
    net = tiny()
    assert len(net.layers) == 2
    assert net(torch.randn(3, 5, 8)).shape == (3, 5, 8)
    with pytest.raises(ValueError, match='num_layers must be >= 1'):
        MaskedTransformer(dim=8, num_layers=0, num_heads=2)


def test_a_masked_out_token_is_not_read():
    """No query may attend to token 3: changing it leaves the other tokens'
    outputs as they were; without the mask it changes them."""
    net = tiny()
    x = torch.randn(1, 5, 8)
    mask = torch.ones(1, 1, 5, 5, dtype=torch.bool)
    mask[..., 3] = False
    mask[..., 3, 3] = True  # token 3 reads itself (a row needs one key)
    y = x.clone()
    y[0, 3] = torch.randn(8)
    keep = [0, 1, 2, 4]
    torch.testing.assert_close(net(x, mask)[:, keep], net(y, mask)[:, keep])
    assert not torch.allclose(net(x)[:, keep], net(y)[:, keep])


def test_cached_steps_equal_the_causal_sequence():
    net = tiny()
    x = torch.randn(2, 4, 8)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()[None, None]
    full = net(x, causal)
    caches = [dict() for _ in net.layers]
    steps = [net(x[:, t:t + 1], caches=caches) for t in range(4)]
    torch.testing.assert_close(torch.cat(steps, 1), full)
    assert caches[0]['k'].shape[2] == 4
