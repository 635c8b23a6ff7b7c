"""Tiny models for tests: CLIP archs, complete model configs, checkpoints
saved like MMEngine's runner, and synthetic image pairs."""
import copy

import numpy as np
import torch

# The model tests' tiny open_clip config (open_clip's model_configs schema):
# 4 vision blocks, 32 px images with 8 px patches (n = 16), 2 text blocks.
TINY_ARCH = dict(
    embed_dim=64,
    vision_cfg=dict(image_size=32, layers=4, width=64, head_width=32,
                    patch_size=8),
    text_cfg=dict(context_length=32, vocab_size=49408, width=64, heads=2,
                  layers=2),
)

# The inference tests' smaller one: 3 vision blocks of width 32 (fast to
# train in the attention-map test), 1 text block.
INFERENCE_ARCH = dict(
    embed_dim=32,
    vision_cfg=dict(image_size=32, layers=3, width=32, head_width=16,
                    patch_size=8),
    text_cfg=dict(context_length=32, vocab_size=49408, width=32, heads=2,
                  layers=1),
)

IMAGE_PIPELINE = [
    dict(type='LoadImagePair'),
    dict(type='ResizePair', size=32),
    dict(type='TokenizeCaptions', context_length=16, mode='all'),
    dict(type='PackIDCInputs'),
]


def tiny_backbone_cfg():
    return dict(type='CLIP4IDCBackbone', arch=copy.deepcopy(INFERENCE_ARCH),
                num_inter_layers=1)


def retriever_cfg() -> dict:
    """A complete config dict of a tiny ``CLIP4IDCRetriever``."""
    return dict(
        default_scope='mmidc',
        model=dict(
            type='CLIP4IDCRetriever',
            backbone=tiny_backbone_cfg(),
            text_encoder=dict(type='CLIPTextEncoder',
                              arch=copy.deepcopy(INFERENCE_ARCH)),
            head=dict(type='ContrastiveAdaptationHead')),
        test_dataloader=dict(
            batch_size=2,
            dataset=dict(type='ImagePairDataset', ann_file='test.jsonl',
                         pipeline=copy.deepcopy(IMAGE_PIPELINE))),
    )


CAPTIONS = ['the red square turned blue', 'the blue square turned red',
            'there is no change', 'a green square has been added']


def captioner_cfg() -> dict:
    """A complete config dict of a tiny ``ConditionedCaptioner`` (the
    from-scratch project's caption head: registered here, imported by the
    config once it is a file)."""
    import projects.from_scratch  # noqa: F401
    return dict(
        default_scope='mmidc',
        custom_imports=dict(imports=['mmidc', 'projects.from_scratch'],
                            allow_failed_imports=False),
        model=dict(
            type='ConditionedCaptioner',
            backbone=tiny_backbone_cfg(),
            head=dict(type='ScratchCaptionHead', hidden=32, num_heads=2,
                      num_encoder_layers=1, num_decoder_layers=1,
                      dropout=0.0, max_length=12, vocab=list(CAPTIONS))),
        test_dataloader=dict(
            batch_size=2,
            dataset=dict(type='ImagePairDataset', ann_file='test.jsonl',
                         pipeline=copy.deepcopy(IMAGE_PIPELINE))),
    )


def save_checkpoint(model: torch.nn.Module, path) -> str:
    """Save like MMEngine's runner: ``meta`` + ``state_dict``."""
    torch.save({'meta': {'epoch': 1, 'seed': 0},
                'state_dict': model.state_dict()}, path)
    return str(path)


def write_config(cfg: dict, path) -> str:
    from mmengine.config import Config
    Config(cfg).dump(str(path))
    return str(path)


def square_pair(colour_before=(220, 30, 30), colour_after=(30, 30, 220),
                box=(8, 8, 16, 16), size=32, background=(128, 128, 128)):
    """A plain-background pair whose one square changes colour.

    Returns RGB uint8 arrays ``[size, size, 3]`` and the square's mask.
    """
    before = np.empty((size, size, 3), np.uint8)
    before[:] = background
    after = before.copy()
    top, left, bottom, right = box
    before[top:bottom, left:right] = colour_before
    after[top:bottom, left:right] = colour_after
    mask = np.zeros((size, size), bool)
    mask[top:bottom, left:right] = True
    return before, after, mask


def write_tiny_clip(path, arch: str = 'mmidc-tiny-clip') -> str:
    """A random open_clip ``arch`` (a shipped mmidc config) saved as a
    safetensors file with open_clip's names, as
    ``python -m projects.tiny_clip.pretrain`` exports it."""
    import open_clip
    from safetensors.torch import save_file

    from mmidc.models.open_clip import register_model_configs
    register_model_configs()
    torch.manual_seed(0)
    model = open_clip.create_model(arch)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              str(path))
    return str(path)
