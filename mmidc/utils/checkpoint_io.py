"""Read a checkpoint file safely: the one reader of ``.pth``/``.safetensors``.

Every weight file mmidc opens (CLIP weights, an adaptation-stage checkpoint,
a trained model, the vocabulary buffer of a checkpoint) goes through
:func:`read_checkpoint`: ``.safetensors`` without pickle, anything else with
``torch.load(weights_only=True)`` (MMEngine checkpoints pass thanks to the
allow-list of :mod:`mmidc.utils.checkpoint_safety`; arbitrary pickles fail).
"""
import os
import zipfile
from typing import Dict, Mapping, Optional, Tuple, Union

import torch

__all__ = ['read_checkpoint', 'unwrap_state_dict', 'load_checkpoint_file',
           'folder_given_as_checkpoint']

CONVERTER = 'tools/model_converters/openai_clip_to_safetensors.py'


def _is_torchscript_archive(path: str) -> bool:
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    return any(n.endswith('/constants.pkl') or '/code/' in n for n in names)


def folder_given_as_checkpoint(path: str) -> str:
    """The error for a folder (a work dir) given where a checkpoint file
    goes: it names the checkpoints in it."""
    found = sorted(name for name in os.listdir(path)
                   if name.endswith(('.pth', '.pt', '.safetensors')))
    return (f'{path} is a folder, not a checkpoint: give a checkpoint file '
            'in it' + (f' ({", ".join(found)})' if found else
                       ' (it holds no .pth or .safetensors file)'))


def read_checkpoint(
        path: Union[str, os.PathLike]) -> Tuple[Dict[str, torch.Tensor], dict]:
    """Read a checkpoint's state dict and its ``meta``.

    Args:
        path (str | PathLike): A ``.safetensors`` file or a ``torch.save``
            file (a state dict, or a dict with ``state_dict`` and ``meta``).

    Returns:
        tuple[dict, dict]: The state dict (``module.`` prefixes stripped) and
        the ``meta`` dict (empty when the file has none).

    Raises:
        FileNotFoundError: ``path`` does not exist, or is a folder (the
            message names the checkpoints in it).
        ValueError: a TorchScript archive, a file ``weights_only`` refuses,
            a corrupt ``.safetensors`` file, or a file that holds no state
            dict of tensors; the message names ``path``.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FileNotFoundError(folder_given_as_checkpoint(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f'checkpoint not found: {path}')
    if not path.endswith('.safetensors') and _is_torchscript_archive(path):
        raise ValueError(
            f'{path!r} is a TorchScript archive (the format of OpenAI\'s '
            'CLIP downloads), which is not loaded with weights_only. '
            f'Convert it once with `python {CONVERTER} {path}`: it writes '
            'checkpoints/clip/<name>.safetensors, where the configs\' '
            '`pretrained` looks.')
    ckpt = load_checkpoint_file(path, hint=(
        '. Expected a state dict of tensors (.pt/.pth/.bin) or a '
        '.safetensors file.'))
    return unwrap_state_dict(ckpt, path)


def _pointer_target(path: str):
    """The path a small one-line text file names (MMEngine's
    ``last_checkpoint``), else None."""
    try:
        if os.path.getsize(path) > 4096:
            return None
        with open(path, 'rb') as f:
            text = f.read().decode('utf-8').strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text or '\n' in text or not text.endswith(
            ('.pth', '.pt', '.bin', '.safetensors')):
        return None
    return text


def load_checkpoint_file(path: str, map_location='cpu', hint: str = ''):
    """A ``.safetensors`` file's state dict, or a ``torch.save`` file's
    content read with ``weights_only=True``; a ``ValueError`` naming
    ``path`` (and ``hint``) when it cannot be read."""
    if path.endswith('.safetensors'):
        from safetensors.torch import load_file
        try:
            return load_file(path, device='cpu')
        except Exception as err:  # SafetensorError: corrupt or truncated
            raise ValueError(f'could not read the safetensors file {path!r}: '
                             f'{err}') from err
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except Exception as err:  # UnpicklingError, corrupt file, ...
        named = _pointer_target(path)
        if named is not None:
            raise ValueError(
                f'{path!r} is not a checkpoint but a pointer to one (a work '
                f"dir's last_checkpoint file): it names {named!r}; pass that "
                'file instead.') from None
        raise ValueError(
            f'could not read {path!r} with torch.load(weights_only=True): '
            f'{err}{hint}') from err


def unwrap_state_dict(ckpt, path: str) -> Tuple[Dict[str, torch.Tensor], dict]:
    """The state dict of a loaded checkpoint (its ``state_dict`` entry
    where it has one, ``module.`` prefixes stripped) and its ``meta``; a
    ``ValueError`` naming ``path`` when it is not a state dict of tensors."""
    if not isinstance(ckpt, dict):
        raise ValueError(f'{path!r} holds a {type(ckpt).__name__}, not a '
                         'state dict')
    meta = {}
    if isinstance(ckpt.get('state_dict'), dict):
        meta = ckpt.get('meta') or {}
        ckpt = ckpt['state_dict']
    bad = [k for k, v in ckpt.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise ValueError(f'{path!r} is not a state dict of tensors: keys '
                         f'{bad[:5]} hold other objects')
    state = {k[len('module.'):] if k.startswith('module.') else k: v
             for k, v in ckpt.items()}
    return state, meta


def _key_prefixes(keys, most: int = 8) -> str:
    """``'backbone.visual (12), head.decoder (3)'``: keys grouped by their
    first two dotted parts (by the first one when that makes more than
    ``most`` groups), with counts."""
    for depth in (2, 1):
        counts: Dict[str, int] = {}
        for key in sorted(keys):
            prefix = '.'.join(key.split('.')[:depth])
            counts[prefix] = counts.get(prefix, 0) + 1
        if len(counts) <= most:
            break
    shown = [f'{p} ({n})' for p, n in counts.items()]
    return ', '.join(shown[:most]) + (', ...' if len(shown) > most else '')


def state_dict_misfit(own: Mapping, state: Mapping) -> Optional[str]:
    """What differs between a model's state dict ``own`` and a checkpoint's
    ``state``: missing, unexpected and differently shaped weights, counted
    by key prefix, for an error message; None when they fit.

    Args:
        own (Mapping): The model's state dict.
        state (Mapping): The checkpoint's.

    Returns:
        str | None: The differences, ``'; '``-joined.
    """
    missing = own.keys() - state.keys()
    unexpected = state.keys() - own.keys()
    reshaped = sorted(k for k in own.keys() & state.keys()
                      if hasattr(own[k], 'shape') and hasattr(state[k], 'shape')
                      and tuple(own[k].shape) != tuple(state[k].shape))
    parts = []
    if missing:
        parts.append(f'{len(missing)} weight(s) of the model missing from it '
                     f'(prefixes: {_key_prefixes(missing)})')
    if unexpected:
        parts.append(f'{len(unexpected)} unexpected weight(s) (prefixes: '
                     f'{_key_prefixes(unexpected)})')
    if reshaped:
        parts.append(f'{len(reshaped)} weight(s) of another shape (e.g. '
                     f'{reshaped[0]}: {tuple(state[reshaped[0]].shape)} in '
                     f'the checkpoint, {tuple(own[reshaped[0]].shape)} in '
                     'the model)')
    return '; '.join(parts) or None
