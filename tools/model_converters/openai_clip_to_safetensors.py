"""Convert OpenAI's CLIP TorchScript archive to a safetensors state dict.

OpenAI distributes CLIP (e.g. ``ViT-B-32.pt``) as TorchScript archives, which
the training code refuses to load (``torch.jit.load`` executes code from the
file). This one-off tool reads the archive's weights and writes a plain
safetensors state dict with open_clip's names, fp32, which every mmidc
``pretrained=`` option accepts::

    python tools/model_converters/openai_clip_to_safetensors.py ViT-B-32.pt

writes ``checkpoints/clip/ViT-B-32.safetensors``, the file the ViT-B/32
configs' ``pretrained`` names (``ViT-B-16.pt`` gives the ViT-B/16 configs'
``checkpoints/clip/ViT-B-16.safetensors``); a second argument writes
elsewhere.

OpenAI's weights were trained with QuickGELU: build the towers with the
``'ViT-B-32-quickgelu'`` arch (or ``quick_gelu=True`` in a config dict). The
file's metadata records this (``quick_gelu: true``).
"""
import argparse
import os
import os.path as osp
import re
import sys
from typing import Dict

import torch

# OpenAI's parameter names are the ones open_clip's ``CLIP`` uses, so the
# rename table is empty; these entries are bookkeeping or buffers rebuilt at
# construction (the causal ``attn_mask``), not weights.
OPENAI_TO_OPEN_CLIP_RENAMES = ()  # (regex, replacement) pairs
OPENAI_DROPPED_KEYS = ('input_resolution', 'context_length', 'vocab_size',
                       'attn_mask')
# Where the configs expect CLIP weights (``pretrained``).
DEFAULT_OUT_DIR = 'checkpoints/clip'
# Keys every ViT CLIP state dict must hold (checked after conversion).
REQUIRED_KEYS = ('visual.conv1.weight', 'visual.class_embedding',
                 'visual.positional_embedding', 'visual.proj',
                 'token_embedding.weight', 'positional_embedding',
                 'text_projection', 'ln_final.weight', 'logit_scale')


def convert_openai_state_dict(
        state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """Map an OpenAI CLIP state dict to open_clip names, fp32, contiguous.

    A pure function driven by :data:`OPENAI_TO_OPEN_CLIP_RENAMES` and
    :data:`OPENAI_DROPPED_KEYS`.
    """
    converted = {}
    for key, value in state.items():
        if key in OPENAI_DROPPED_KEYS:
            continue
        for pattern, replacement in OPENAI_TO_OPEN_CLIP_RENAMES:
            key = re.sub(pattern, replacement, key)
        if value.is_floating_point():
            value = value.float()  # OpenAI stores most weights in fp16
        converted[key] = value.detach().clone().contiguous()
    missing = [k for k in REQUIRED_KEYS if k not in converted]
    if missing:
        raise KeyError(f'not a ViT CLIP state dict: missing {missing}')
    return converted


def default_output(src: str) -> str:
    """``checkpoints/clip/<archive name>.safetensors`` (the configs' path)."""
    name = osp.splitext(osp.basename(src))[0]
    return osp.join(DEFAULT_OUT_DIR, f'{name}.safetensors')


def check_archive(src: str) -> None:
    """Raise an error naming ``src`` unless it is a TorchScript archive.

    Raises:
        FileNotFoundError: ``src`` does not exist.
        ValueError: ``src`` is a plain state dict (``.pt`` / ``.pth`` /
            ``.bin`` / ``.safetensors``, which ``pretrained=`` reads without
            conversion) or no readable weight file at all (a truncated or
            damaged download).
    """
    from mmidc.utils.checkpoint_io import (_is_torchscript_archive,
                                           read_checkpoint)
    if not osp.isfile(src):
        raise FileNotFoundError(f'{src}: no such file')
    if not src.endswith('.safetensors') and _is_torchscript_archive(src):
        return
    try:
        state, _ = read_checkpoint(src)
    except ValueError as err:
        raise ValueError(
            f'{src} is not a TorchScript archive (the format of OpenAI\'s CLIP '
            f'downloads) nor a state dict: a truncated or damaged download? '
            f'Download it again. ({err})') from None
    raise ValueError(
        f'{src} is not a TorchScript archive but a plain state dict '
        f'({len(state)} tensors): no conversion needed, a config\'s '
        f'`pretrained` reads it as it is (e.g. the adaptation configs\' '
        f'--cfg-options model.pretrained={src}).')


def convert_archive(src: str, dst: str) -> Dict[str, torch.Tensor]:
    """Read the TorchScript archive ``src``, write safetensors ``dst``.

    Raises:
        FileNotFoundError: ``src`` does not exist.
        ValueError: ``src`` is not a TorchScript archive
            (:func:`check_archive`).
    """
    from safetensors.torch import save_file
    check_archive(src)
    if osp.dirname(dst):
        os.makedirs(osp.dirname(dst), exist_ok=True)
    print(f'reading {src} (TorchScript archive)')
    archive = torch.jit.load(src, map_location='cpu')
    state = convert_openai_state_dict(archive.state_dict())
    save_file(state, dst, metadata=dict(format='pt', source='openai',
                                        quick_gelu='true'))
    num_params = sum(v.numel() for v in state.values())
    print(f'wrote {dst}: {len(state)} tensors, {num_params / 1e6:.1f}M '
          'values (fp32). Use arch "<name>-quickgelu" with these weights.')
    return state


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('src', help="OpenAI archive, e.g. ViT-B-32.pt")
    parser.add_argument(
        'dst', nargs='?',
        help=f'output .safetensors file (default: {DEFAULT_OUT_DIR}/'
        '<src name>.safetensors, where the configs look)')
    args = parser.parse_args()
    if args.dst is None:
        args.dst = default_output(args.src)
    if not args.dst.endswith('.safetensors'):
        parser.error(f'dst {args.dst!r} must end with .safetensors')
    try:
        convert_archive(args.src, args.dst)
    except (FileNotFoundError, ValueError) as err:
        print(f'{parser.prog}: error: {err}', file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == '__main__':
    main()
