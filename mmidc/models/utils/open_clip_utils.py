"""Building open_clip towers and loading CLIP weights into them.

Every CLIP-derived module in this package keeps open_clip's parameter names,
so a CLIP state dict loads after stripping one prefix:

* vision tower: the keys under ``visual.`` (``visual.conv1.weight`` ->
  ``conv1.weight``);
* text tower: the top-level text keys (``token_embedding``,
  ``positional_embedding``, ``transformer.*``, ``ln_final``,
  ``text_projection``); open_clip's ``CustomTextCLIP`` layout (``text.*``) is
  accepted too;
* ``logit_scale``: the contrastive temperature.

Accepted ``pretrained`` values (see :func:`load_clip_state_dict`):

* a local file: ``.safetensors`` (read with safetensors) or ``.pt`` /
  ``.pth`` / ``.bin`` (read with ``torch.load(weights_only=True)``) holding an
  open_clip or OpenAI state dict (both use the same names);
* an MMEngine checkpoint (a dict with a ``state_dict`` key). It is unwrapped,
  a leading ``module.`` (DDP) is stripped, and a ``CLIP4IDCRetriever``
  checkpoint is mapped back to CLIP names: ``backbone.X`` -> ``visual.X``,
  ``text_encoder.X`` -> ``X``, ``head.logit_scale`` -> ``logit_scale``. The
  backbone's own new parameters (image-id / joint positional embeddings) then
  load as well, so an adaptation-stage checkpoint can seed the captioner;
* an open_clip pretrained tag (``'openai'``, ``'laion2b_s34b_b79k'``, ...)
  for a named ``arch``: downloaded through open_clip, so only where the hub
  is reachable.

OpenAI's own ``ViT-B-32.pt`` files are TorchScript archives: they are refused
with a message pointing to ``tools/model_converters/
openai_clip_to_safetensors.py``, which writes a plain safetensors state dict.
OpenAI's weights were trained with QuickGELU: use open_clip's
``'ViT-B-32-quickgelu'`` arch (or ``quick_gelu=True`` in a config dict).
"""
import copy
import importlib.metadata
import math
import os
import re
from typing import Dict, Optional, Sequence, Tuple, Union

import torch
from mmengine.logging import print_log
from torch import nn

from mmidc.utils.checkpoint_io import read_checkpoint

__all__ = [
    'check_open_clip_version', 'check_batch_first_blocks',
    'get_clip_config', 'build_clip_vision_tower', 'build_clip_text_tower',
    'load_clip_state_dict', 'vision_state_dict', 'text_state_dict',
    'load_tower_weights', 'interpolate_pos_embed', 'resolve_pretrained',
    'grid_of', 'register_model_configs', 'MODEL_CONFIG_DIR'
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
StateDict = Dict[str, torch.Tensor]

_STATE_DICT_SUFFIXES = ('.safetensors', '.pt', '.pth', '.bin')
_TEXT_PREFIXES = ('token_embedding.', 'positional_embedding',
                  'transformer.', 'ln_final.', 'text_projection', 'attn_mask')
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


def _release(version: str) -> tuple:
    return tuple(int(p) for p in re.findall(r'\d+', version.split('+')[0])[:3])


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
    release = _release(version)
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


# ---------------------------------------------------------------- loading


def _unwrap_checkpoint(ckpt: dict, path: str) -> StateDict:
    if not isinstance(ckpt, dict):
        raise ValueError(f'{path!r} holds a {type(ckpt).__name__}, not a '
                         'state dict')
    if 'state_dict' in ckpt and isinstance(ckpt['state_dict'], dict):
        ckpt = ckpt['state_dict']  # MMEngine / open_clip training checkpoint
    state = {}
    for key, value in ckpt.items():
        if key.startswith('module.'):
            key = key[len('module.'):]
        if key.startswith('backbone.'):
            key = 'visual.' + key[len('backbone.'):]
        elif key.startswith('text_encoder.'):
            key = key[len('text_encoder.'):]
        elif key == 'head.logit_scale':
            key = 'logit_scale'
        state[key] = value
    bad = [k for k, v in state.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise ValueError(f'{path!r} is not a state dict of tensors: keys '
                         f'{bad[:5]} hold other objects')
    # open_clip's CustomTextCLIP layout keeps the text tower under ``text.``
    if 'text.token_embedding.weight' in state:
        state = {(k[len('text.'):] if k.startswith('text.') else k): v
                 for k, v in state.items()}
    for key in ('input_resolution', 'context_length', 'vocab_size',
                'attn_mask'):
        state.pop(key, None)  # OpenAI bookkeeping / rebuilt causal mask
    return state


def resolve_pretrained(pretrained: str, arch: ArchType) -> str:
    """Return a local file for ``pretrained`` (a path or a pretrained tag)."""
    if os.path.isfile(pretrained) or pretrained.endswith(_STATE_DICT_SUFFIXES):
        return pretrained
    import open_clip
    if not isinstance(arch, str):
        raise ValueError(f'pretrained={pretrained!r} is neither a file nor '
                         'usable as an open_clip tag with a config-dict arch')
    tags = open_clip.list_pretrained_tags_by_model(arch)
    if pretrained not in tags:
        raise ValueError(f'pretrained={pretrained!r}: no such file, and not '
                         f'an open_clip tag for {arch!r} (tags: {tags})')
    try:
        path = open_clip.download_pretrained(
            open_clip.get_pretrained_cfg(arch, pretrained))
    except Exception as err:
        raise RuntimeError(
            f'could not download open_clip weights {arch}/{pretrained} '
            f'({type(err).__name__}: {err}). Without hub access, download '
            'the state dict elsewhere and pass its local path as '
            'pretrained.') from err
    if not path:
        raise RuntimeError(f'open_clip has no download for {arch}/'
                           f'{pretrained}')
    return path


def load_clip_state_dict(pretrained: Union[str, dict],
                         arch: ArchType = None) -> StateDict:
    """Load a full CLIP state dict with open_clip names.

    Args:
        pretrained (str | dict): A file path, an open_clip pretrained tag
            (needs a named ``arch`` and hub access) or an already loaded
            state dict. See the module docstring for the accepted formats.
        arch (str | dict, optional): The arch, for pretrained tags.
    """
    if isinstance(pretrained, dict):
        return _unwrap_checkpoint(pretrained, '<state dict>')
    path = resolve_pretrained(str(pretrained), arch)
    print_log(f'Loading CLIP weights from {path}', logger='current')
    return _unwrap_checkpoint(read_checkpoint(path)[0], path)


def vision_state_dict(state: StateDict) -> StateDict:
    """The ``visual.*`` entries of a CLIP state dict, prefix stripped."""
    return {k[len('visual.'):]: v for k, v in state.items()
            if k.startswith('visual.')}


def text_state_dict(state: StateDict) -> StateDict:
    """The text-tower entries of a CLIP state dict (top-level names)."""
    return {k: v for k, v in state.items() if k.startswith(_TEXT_PREFIXES)}


def interpolate_pos_embed(pos_embed: torch.Tensor, old_grid: Tuple[int, int],
                          new_grid: Tuple[int, int]) -> torch.Tensor:
    """Resize a ViT positional embedding ``[1 + h*w, D]`` to a new grid.

    MMPretrain's ``resize_pos_embed`` on open_clip's unbatched table: the CLS
    row is kept, the grid rows are resized bicubically in fp32.
    """
    if tuple(old_grid) == tuple(new_grid):
        return pos_embed  # the parameter itself (every forward at train size)
    # imported here: mmpretrain.models pulls mmcv.cnn, which warns about
    # mmcv-lite's missing ops at import
    from mmpretrain.models.utils import resize_pos_embed
    return resize_pos_embed(pos_embed[None], tuple(old_grid), tuple(new_grid),
                            mode='bicubic', num_extra_tokens=1)[0]


def load_tower_weights(module: nn.Module,
                       state: StateDict,
                       source: str,
                       new_params: Sequence[str] = ()) -> None:
    """Load a tower's state dict, failing on missing CLIP keys.

    Missing keys are an error naming them, except the module's own new
    parameters (``new_params``, name prefixes), which keep their
    initialisation when the checkpoint lacks them. Unexpected keys are
    logged by name and ignored.

    Args:
        module (nn.Module): The tower.
        state (dict): Its state dict (prefix already stripped).
        source (str): Where the weights come from, for messages.
        new_params (Sequence[str]): Names of parameters that are not CLIP's.
    """
    own = module.state_dict()
    missing = [k for k in own if k not in state
               and not k.startswith(tuple(new_params))]
    if missing:
        raise KeyError(f'{source} lacks CLIP weights for '
                       f'{type(module).__name__}: missing keys {missing}')
    unexpected = [k for k in state if k not in own]
    if unexpected:
        print_log(f'{type(module).__name__}: ignoring unexpected keys from '
                  f'{source}: {unexpected}', logger='current', level=30)
    shapes = [f'{k}: checkpoint {tuple(state[k].shape)} vs model '
              f'{tuple(own[k].shape)}' for k in own
              if k in state and state[k].shape != own[k].shape]
    if shapes:
        raise ValueError(f'{source}: shape mismatch for '
                         f'{type(module).__name__}: {shapes}')
    loadable = {k: v for k, v in state.items() if k in own}
    module.load_state_dict(loadable, strict=False)
    skipped = [k for k in own if k not in state]
    if skipped:
        print_log(f'{type(module).__name__}: new parameters not in {source} '
                  f'(kept at init): {skipped}', logger='current')


def grid_of(num_tokens: int) -> Tuple[int, int]:
    """Square grid for ``num_tokens`` positional rows (CLS included)."""
    side = math.isqrt(num_tokens - 1)
    if side * side != num_tokens - 1:
        raise ValueError(f'positional embedding with {num_tokens} rows is '
                         'not a square grid plus CLS')
    return side, side


check_open_clip_version()  # on import: a clear error, not wrong attention
