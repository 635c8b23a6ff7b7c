import open_clip
import pytest
import torch
from torch.testing import assert_close

from mmidc.models.clip4idc import CLIPTextEncoder
from mmidc.registry import MODELS

CAPTIONS = ['the scene remains the same', 'the red cube has been added',
            'a small gray metal sphere changed its location']


def test_matches_open_clip_encode_text(tiny_arch, tiny_clip):
    encoder = CLIPTextEncoder(tiny_arch,
                              pretrained=tiny_clip.state_dict()).eval()
    tokens = open_clip.tokenize(CAPTIONS, context_length=32)
    assert_close(encoder(tokens), tiny_clip.encode_text(tokens))


def test_shorter_sequences_give_same_features(tiny_arch):
    encoder = CLIPTextEncoder(tiny_arch).eval()
    full = open_clip.tokenize(CAPTIONS, context_length=32)
    short = full[:, :16]  # all captions end before 16 tokens
    assert_close(encoder(short), encoder(full), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match='context length'):
        encoder(torch.zeros(1, 40, dtype=torch.long))


def test_missing_text_key_is_named(tiny_arch, tiny_clip):
    state = tiny_clip.state_dict()
    del state['ln_final.weight']
    with pytest.raises(KeyError, match='ln_final.weight'):
        CLIPTextEncoder(tiny_arch, pretrained=state)


def test_builds_from_registry_and_runs_in_bf16(tiny_arch):
    encoder = MODELS.build(dict(type='CLIPTextEncoder', arch=tiny_arch))
    tokens = open_clip.tokenize(CAPTIONS, context_length=32)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        feats = encoder(tokens)
    assert feats.shape == (3, 64) and torch.isfinite(feats.float()).all()


@pytest.mark.parametrize('stages, blocks', [(0, 0), (1, 1)])
def test_frozen_stages(tiny_arch, tiny_clip, stages, blocks):
    encoder = CLIPTextEncoder(tiny_arch, pretrained=tiny_clip.state_dict(),
                              frozen_stages=stages)
    encoder.train()
    frozen = {n for n, p in encoder.named_parameters() if not p.requires_grad}
    expected = {'token_embedding.weight', 'positional_embedding'} | {
        n for n, _ in encoder.named_parameters()
        if n.startswith(tuple(f'transformer.resblocks.{i}.'
                              for i in range(blocks)))}
    assert frozen == expected
    # the weights still load: the frozen embeddings are CLIP's
    assert_close(encoder.token_embedding.weight,
                 tiny_clip.token_embedding.weight)
    with pytest.raises(ValueError, match='frozen_stages'):
        CLIPTextEncoder(tiny_arch, frozen_stages=3)
