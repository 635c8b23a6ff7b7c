"""Tiny IDC-PCL models and batches shared by the tests of this package."""
import copy

import torch
from mmpretrain.structures import DataSample

from mmidc.registry import MODELS
from mmidc.text import clip_tokenizer

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'the cylinder moved']
CHANGE_TYPES = ['color', 'none', 'add', 'move']
IMAGE_SIZE = (32, 48)
# MMPretrain's ResNet at a CPU-test size: 3 stages of 8/16/32 channels,
# stride 16 -> a 2x3 grid of 32-dim features per image.
TINY_RESNET = dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                   base_channels=8, num_stages=3, strides=(1, 2, 2),
                   dilations=(1, 1, 1), out_indices=(2, ))


def tiny_model_cfg(kind='IDCPCLCaptioner', **overrides):
    cfg = dict(
        type=kind,
        hidden=32,
        feature_encoder=dict(type='PairFeatureEncoder', backbone=TINY_RESNET,
                             image_size=IMAGE_SIZE),
        single_image_encoder=dict(type='SingleImageEncoder', num_heads=2),
        pair_encoder=dict(type='PairEncoder', num_heads=2),
        cross_modal=dict(type='CrossModalTransformer', num_layers=2,
                         num_heads=2, max_length=16, vocab=CAPTIONS))
    cfg.update(copy.deepcopy(overrides))
    return cfg


def tiny_batch(captions=CAPTIONS, negatives=2, seed=1):
    """A packed batch as the loader yields it: uint8 pairs, ``text_tokens``,
    the contract's metainfo and ``negative_captions`` (the other captions)."""
    g = torch.Generator().manual_seed(seed)
    tokens = clip_tokenizer()(captions, context_length=16)  # [B, 16]
    inputs, samples = [], []
    for i, t in enumerate(tokens):
        inputs.append(torch.randint(0, 256, (2, 3, *IMAGE_SIZE), generator=g,
                                    dtype=torch.uint8))
        others = [captions[(i + k) % len(captions)] for k in range(1, negatives + 1)]
        ds = DataSample(metainfo=dict(
            pair_id=str(i), change_type=CHANGE_TYPES[i % len(CHANGE_TYPES)],
            gt_captions=[captions[i]], negative_captions=others))
        ds.set_field(t, 'text_tokens')
        samples.append(ds)
    return dict(inputs=inputs, data_samples=samples)


def tiny_image_token_encoder(kind, hidden=8):
    """A seeded one-layer ``SingleImageEncoder`` / ``PairEncoder`` in eval mode."""
    torch.manual_seed(0)
    return MODELS.build(dict(type=kind, hidden=hidden, num_heads=2)).eval()
