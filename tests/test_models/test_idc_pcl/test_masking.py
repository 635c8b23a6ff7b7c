import pytest
import torch

from mmidc.models.idc_pcl.masking import (joint_attention_mask,
                                          mask_caption_tokens, mask_one_image)


def test_seq2seq_mask_position_by_position():
    """Tv = 3 visual tokens, then a caption of 4 positions whose last one is
    padding: check every (query, key) entry against the rule."""
    Tv = 3
    valid = torch.tensor([[True, True, True, False]])
    mask = joint_attention_mask(Tv, valid, 'seq2seq')
    assert mask.shape == (1, 1, 7, 7)
    for q in range(7):
        for k in range(7):
            if q < Tv:  # visual query: visual keys only
                expected = k < Tv
            elif k < Tv:  # caption query, visual key: always
                expected = True
            else:  # caption query and key: earlier or same, not padding
                expected = (k <= q) and bool(valid[0, k - Tv])
            assert bool(mask[0, 0, q, k]) == expected, (q, k)


def test_bidirectional_mask_position_by_position():
    Tv = 2
    valid = torch.tensor([[True, True, False], [True, False, False]])
    mask = joint_attention_mask(Tv, valid, 'bidirectional')
    for b in range(2):
        for q in range(5):
            for k in range(5):
                expected = k < Tv or bool(valid[b, k - Tv])
                assert bool(mask[b, 0, q, k]) == expected, (b, q, k)
    with pytest.raises(ValueError, match='mode'):
        joint_attention_mask(Tv, valid, 'causal')


def test_caption_masking_follows_bert_and_spares_unmaskable_tokens():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(2, 50, (400, 20), generator=g)
    maskable = torch.ones_like(ids, dtype=torch.bool)
    maskable[:, 0] = False
    maskable[:, 15:] = False  # padding
    masked, targets = mask_caption_tokens(ids, maskable, 0.15, mask_id=99,
                                          random_ids=(2, 50), generator=g)
    chosen = targets != -100
    assert not chosen[:, 0].any() and not chosen[:, 15:].any()
    assert torch.equal(masked[~chosen], ids[~chosen])
    assert torch.equal(targets[chosen], ids[chosen])
    assert chosen.any(1).all()  # at least one per row
    rate = chosen.sum().item() / maskable.sum().item()
    assert 0.13 < rate < 0.19
    share_mask = (masked[chosen] == 99).float().mean().item()
    assert 0.75 < share_mask < 0.87
    # the rest: random words or the word itself, all in the word range
    assert ((masked[chosen] >= 2) & (masked[chosen] < 50) | (masked[chosen] == 99)).all()


def test_one_image_masked_per_pair():
    g = torch.Generator().manual_seed(0)
    mask = mask_one_image(200, 30, 0.15, generator=g)  # [B, 2, N]
    per_image = mask.any(2)  # [B, 2]
    assert (per_image.sum(1) == 1).all()
    assert per_image[:, 0].any() and per_image[:, 1].any()
    rate = mask.sum().item() / (200 * 30)
    assert 0.12 < rate < 0.19
