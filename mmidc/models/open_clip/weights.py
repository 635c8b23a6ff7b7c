"""Loading CLIP weights into the open_clip towers (:mod:`.towers`).

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
``'ViT-B-32-quickgelu'`` arch (or ``quick_gelu=True`` in a config dict). The
converter records this in its file's metadata (``quick_gelu: true``); such
a file loaded for towers built with GELU is a warning naming it.
"""
import logging
import math
import os
from typing import Dict, Sequence, Tuple, Union

import torch
from mmengine.logging import print_log
from torch import nn

from mmidc.utils.checkpoint_io import CONVERTER, read_checkpoint, unwrap_state_dict

__all__ = [
    'load_clip_state_dict', 'vision_state_dict', 'text_state_dict',
    'load_tower_weights', 'interpolate_pos_embed', 'resolve_pretrained',
    'grid_of'
]

ArchType = Union[str, dict]
StateDict = Dict[str, torch.Tensor]

_STATE_DICT_SUFFIXES = ('.safetensors', '.pt', '.pth', '.bin')
_TEXT_PREFIXES = ('token_embedding.', 'positional_embedding',
                  'transformer.', 'ln_final.', 'text_projection', 'attn_mask')


def _unwrap_checkpoint(ckpt: dict, path: str) -> StateDict:
    state = {}
    for key, value in unwrap_state_dict(ckpt, path)[0].items():
        if key.startswith('backbone.'):
            key = 'visual.' + key[len('backbone.'):]
        elif key.startswith('text_encoder.'):
            key = key[len('text_encoder.'):]
        elif key == 'head.logit_scale':
            key = 'logit_scale'
        state[key] = value
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
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f'CLIP weights not found: {path} (a `pretrained` path of the '
            "config's model; a relative path is read from "
            f'{os.path.abspath(".")}). Convert OpenAI\'s ViT-B-32.pt (or '
            f'ViT-B-16.pt) once with `python {CONVERTER} ViT-B-32.pt`, which '
            'writes checkpoints/clip/ViT-B-32.safetensors, or set `pretrained` '
            'to your file; to train without CLIP weights, see '
            'docs/from_scratch.md.')
    print_log(f'Loading CLIP weights from {path}', logger='current')
    state = _unwrap_checkpoint(read_checkpoint(path)[0], path)
    if arch is not None:
        _check_quick_gelu(path, arch)
    return state


def _check_quick_gelu(path: str, arch: ArchType) -> None:
    """Warn when ``path`` records QuickGELU weights (the converter writes
    ``quick_gelu: true`` into OpenAI's) and ``arch`` builds GELU towers."""
    if not path.endswith('.safetensors'):
        return
    from safetensors import safe_open

    from .towers import get_clip_config
    with safe_open(path, framework='pt') as f:
        metadata = f.metadata() or {}
    if metadata.get('quick_gelu') != 'true' or \
            get_clip_config(arch).get('quick_gelu', False):
        return
    name = arch if isinstance(arch, str) else 'the arch config dict'
    print_log(
        f'{path} holds CLIP weights trained with QuickGELU (OpenAI\'s), but '
        f'{name} builds its towers with GELU, so every block computes other '
        f"features than the weights were trained for: use the '-quickgelu' "
        f"arch ('ViT-B-32-quickgelu', as the shipped configs do) or "
        f'quick_gelu=True in an arch dict.', logger='current',
        level=logging.WARNING)


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
