"""Building open_clip's CLIP towers (a plain ViT and the text Transformer)
from a model name or config, and the open_clip releases mmidc supports.

mmidc's own open_clip model configs (``mmidc-tiny-clip``, ...) are
registered with open_clip by :func:`register_model_configs`; how CLIP
weights load into the towers is :mod:`.weights`'.
"""
import copy
import importlib.metadata
import os
import re
from typing import Optional, Union

from torch import nn

__all__ = [
    'check_open_clip_version', 'check_batch_first_blocks', 'get_clip_config',
    'build_clip_vision_tower', 'build_clip_text_tower',
    'register_model_configs', 'MODEL_CONFIG_DIR'
]

#: open_clip model configs shipped with mmidc (``mmidc-tiny-clip``, ...),
#: registered with open_clip by :func:`register_model_configs`.
MODEL_CONFIG_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'clip4idc',
    'model_configs')


def register_model_configs() -> None:
    """Add mmidc's open_clip model configs to open_clip's registry, so that
    ``open_clip.create_model('mmidc-tiny-clip', ...)`` and configs' ``arch``
    know them (idempotent)."""
    import open_clip
    if 'mmidc-tiny-clip' not in open_clip.list_models():
        open_clip.add_model_config(MODEL_CONFIG_DIR)


ArchType = Union[str, dict]

# Vision-config options whose towers are not plain CLIP ViTs (different
# modules or token layouts): refused rather than silently mis-built.
_UNSUPPORTED_VISION = dict(
    timm_model_name=None, attentional_pool=False, pool_type='tok',
    final_ln_after_pool=False, patch_dropout=0., block_type=None,
    qk_norm=False, scaled_cosine_attn=False, scale_heads=False,
    scale_attn_inner=False, scale_attn=False, scale_fc=False)
_UNSUPPORTED_TEXT = dict(
    hf_model_name=None, embed_cls=False, no_causal_mask=False,
    pool_type='argmax', proj_type='linear', proj_bias=False, block_type=None,
    qk_norm=False, scaled_cosine_attn=False, scale_heads=False,
    scale_attn_inner=False, scale_attn=False, scale_fc=False)


# The open_clip releases mmidc is tested with (setup.cfg pins the same range):
# 2.26.1 is the first whose transformer blocks are batch-first (2.24 and
# earlier run nn.MultiheadAttention sequence-first: fed [B, N, D], attention
# would mix the batch silently); the upper bound is the newest release tested
# (the backbone reads attention maps through the blocks' nn.MultiheadAttention).
OPEN_CLIP_MIN = (2, 26, 1)
OPEN_CLIP_BELOW = (3, 4)


def check_open_clip_version(version: Optional[str] = None) -> None:
    """Fail with a clear message on an open_clip outside the tested range.

    Args:
        version (str, optional): The version to check; defaults to the
            installed ``open_clip_torch``.

    Raises:
        ImportError: the version is below 2.26.1 or at/above 3.4.
    """
    if version is None:
        version = importlib.metadata.version('open_clip_torch')
    release = tuple(int(p) for p in re.findall(r'\d+', version.split('+')[0])[:3])
    if not OPEN_CLIP_MIN <= release < OPEN_CLIP_BELOW:
        wanted = (f'>={".".join(map(str, OPEN_CLIP_MIN))},'
                  f'<{".".join(map(str, OPEN_CLIP_BELOW))}')
        why = ('its transformer blocks are sequence-first, so attention '
               'would mix the images of a batch' if release < OPEN_CLIP_MIN
               else 'it is newer than the releases mmidc is tested with')
        raise ImportError(
            f'open_clip_torch {version} is not supported by mmidc: {why}. '
            f'Install a supported release: pip install "open_clip_torch{wanted}"')


def check_batch_first_blocks(tower: nn.Module, where: str) -> None:
    """Check that a tower's blocks attend batch-first with
    ``nn.MultiheadAttention`` (what the backbone and the attention maps
    assume); raise naming the block otherwise."""
    blocks = getattr(getattr(tower, 'transformer', None), 'resblocks', ())
    for index, block in enumerate(blocks):
        attn = getattr(block, 'attn', None)
        if isinstance(attn, nn.MultiheadAttention) and attn.batch_first:
            continue
        found = ('nn.MultiheadAttention(batch_first=False)'
                 if isinstance(attn, nn.MultiheadAttention)
                 else type(attn).__name__)
        raise RuntimeError(
            f'{where}: open_clip block {index} attends with {found}; mmidc '
            'needs batch-first nn.MultiheadAttention blocks '
            '(open_clip_torch>=2.26.1,<3.4)')


def get_clip_config(arch: ArchType) -> dict:
    """Return a copy of an open_clip model config.

    Args:
        arch (str | dict): An open_clip model name (``'ViT-B-32'``,
            ``'ViT-B-16'``, ``'ViT-L-14'``, ``'ViT-B-32-quickgelu'``, ...) or a
            config dict with open_clip's schema (``embed_dim``, ``vision_cfg``,
            ``text_cfg``, optional ``quick_gelu``).
    """
    import open_clip
    if isinstance(arch, str):
        register_model_configs()
        cfg = open_clip.get_model_config(arch)
        if cfg is None:
            vit_names = [m for m in open_clip.list_models() if 'ViT' in m]
            raise ValueError(f'arch={arch!r} is not an open_clip model '
                             f'config; known ViT configs: {vit_names[:12]} '
                             '... (or pass a config dict)')
        cfg['_name'] = arch
    elif isinstance(arch, dict):
        cfg = copy.deepcopy(dict(arch))
    else:
        raise TypeError(f'arch must be a model name or a config dict, got '
                        f'{type(arch).__name__}')
    for key in ('embed_dim', 'vision_cfg', 'text_cfg'):
        if key not in cfg:
            raise KeyError(f'arch config is missing the key {key!r} '
                           '(open_clip schema: embed_dim, vision_cfg, '
                           'text_cfg)')
    return cfg


def _check_options(cfg: dict, allowed: dict, where: str) -> None:
    for key, plain in allowed.items():
        if key in cfg and cfg[key] != plain:
            raise ValueError(f'{where}.{key}={cfg[key]!r} is not supported '
                             f'(only plain CLIP towers; expected {plain!r})')


def build_clip_vision_tower(arch: ArchType,
                            img_size: Optional[int] = None) -> nn.Module:
    """Build open_clip's ``VisionTransformer`` for ``arch``.

    Args:
        arch (str | dict): See :func:`get_clip_config`.
        img_size (int, optional): Input size; overrides the config's
            ``image_size``. Must be divisible by the patch size.
    """
    from open_clip.model import CLIPVisionCfg, _build_vision_tower
    cfg = get_clip_config(arch)
    vision_cfg = dict(cfg['vision_cfg'])
    if isinstance(vision_cfg.get('layers'), (list, tuple)):
        raise ValueError('arch vision_cfg.layers is a tuple (a ResNet CLIP); '
                         'only ViT towers are supported')
    _check_options(vision_cfg, _UNSUPPORTED_VISION, 'arch vision_cfg')
    if img_size is not None:
        vision_cfg['image_size'] = img_size
    patch = vision_cfg.get('patch_size', CLIPVisionCfg.patch_size)
    size = vision_cfg.get('image_size', CLIPVisionCfg.image_size)
    for side in (size if isinstance(size, (list, tuple)) else (size, )):
        if side % patch:
            raise ValueError(f'img_size={size} is not divisible by the '
                             f'patch size {patch}')
    tower = _build_vision_tower(cfg['embed_dim'], CLIPVisionCfg(**vision_cfg),
                                quick_gelu=cfg.get('quick_gelu', False))
    check_batch_first_blocks(tower, 'vision tower')
    return tower


def build_clip_text_tower(arch: ArchType) -> nn.Module:
    """Build open_clip's ``TextTransformer`` for ``arch``.

    Args:
        arch (str | dict): See :func:`get_clip_config`.
    """
    from open_clip.model import CLIPTextCfg, _build_text_tower
    cfg = get_clip_config(arch)
    text_cfg = dict(cfg['text_cfg'])
    _check_options(text_cfg, _UNSUPPORTED_TEXT, 'arch text_cfg')
    tower = _build_text_tower(cfg['embed_dim'], CLIPTextCfg(**text_cfg),
                              quick_gelu=cfg.get('quick_gelu', False))
    check_batch_first_blocks(tower, 'text tower')
    return tower


check_open_clip_version()  # on import: a clear error, not wrong attention
