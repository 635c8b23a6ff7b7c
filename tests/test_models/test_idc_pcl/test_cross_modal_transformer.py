import pytest
import torch

from mmidc.text import SOT_ID
from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import CAPTIONS

TV, H = 6, 32


def tiny_cross_modal(**kwargs):
    cfg = dict(type='CrossModalTransformer', hidden=H, num_layers=2,
               num_heads=2, max_length=12, vocab=CAPTIONS)
    cfg.update(kwargs)
    return MODELS.build(cfg).eval()


def test_special_ids_follow_the_vocabulary_and_are_never_predicted():
    cm = tiny_cross_modal()
    V = len(cm.vocab)
    assert (cm.cls_id, cm.mask_id) == (V, V + 1)
    assert cm.word_embed.num_embeddings == V + 2
    assert cm.word_logits(torch.randn(3, H)).shape == (3, V)


def test_seq2seq_reads_no_later_caption_token_and_images_read_no_caption():
    cm = tiny_cross_modal()
    visual = torch.randn(1, TV, H)
    ids = torch.tensor([[cm.vocab.sot_id, 5, 6, 7, 8]])
    valid = torch.ones_like(ids, dtype=torch.bool)
    out = cm(visual, ids, valid, 'seq2seq')
    changed = ids.clone()
    changed[0, 3] = 9  # caption position 3
    out2 = cm(visual, changed, valid, 'seq2seq')
    torch.testing.assert_close(out[:, :TV + 3], out2[:, :TV + 3])  # images, positions 0-2
    assert not torch.allclose(out[:, TV + 3:], out2[:, TV + 3:])  # positions 3, 4
    # bidirectional: the images read the caption
    b1 = cm(visual, ids, valid, 'bidirectional')
    b2 = cm(visual, changed, valid, 'bidirectional')
    assert not torch.allclose(b1[:, :TV], b2[:, :TV])


def test_padding_is_not_read():
    cm = tiny_cross_modal()
    visual = torch.randn(2, TV, H)
    ids = torch.tensor([[cm.vocab.sot_id, 5, 6, 0], [cm.vocab.sot_id, 5, 6, 7]])
    valid = torch.tensor([[True, True, True, False], [True, True, True, True]])
    out = cm(visual, ids, valid, 'bidirectional', with_cls=True)
    alone = cm(visual[:1], ids[:1, :3], valid[:1, :3], 'bidirectional', with_cls=True)
    torch.testing.assert_close(out[:1, :TV + 4], alone)


@pytest.mark.parametrize('strategy', ['greedy', 'beam'])
def test_cached_decoding_equals_recomputing_the_sequence(strategy):
    cm = tiny_cross_modal()
    visual = torch.randn(3, TV, H)
    if strategy == 'greedy':
        a = cm.greedy_decode(visual, use_cache=True)
        b = cm.greedy_decode(visual, use_cache=False)
    else:
        a = cm.beam_search(visual, beam_size=3, use_cache=True)
        b = cm.beam_search(visual, beam_size=3, use_cache=False)
    assert torch.equal(a.tokens, b.tokens)
    torch.testing.assert_close(a.score, b.score)
    # CLIP ids, never the start token; text comes back
    assert (a.tokens != SOT_ID).all()
    assert len(cm.decode_text(a.tokens)) == 3


def test_caption_ids_trim_padding_columns_and_check_length():
    cm = tiny_cross_modal()
    tokens = torch.zeros(2, 12, dtype=torch.long)
    tokens[:, 0] = SOT_ID
    tokens[0, 1:3] = torch.tensor([cm.vocab.clip_ids[5], 49407])
    ids, valid = cm.caption_ids(tokens)
    assert ids.shape == (2, 3) and valid.tolist() == [[True] * 3, [True, False, False]]
    assert ids[0, 1] == 5
    with pytest.raises(ValueError, match='max_length'):
        cm.caption_ids(torch.zeros(1, 13, dtype=torch.long))
