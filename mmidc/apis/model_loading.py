"""Build a model from a config and load a trained checkpoint, safely."""
import copy
import os
from pathlib import Path
from typing import Optional, Union

import torch
from mmengine.config import Config
from mmengine.logging import print_log
from mmengine.model import BaseModel
from mmengine.registry import init_default_scope
from mmengine.runner import load_state_dict

from mmidc.utils.checkpoint_io import read_checkpoint, state_dict_misfit
from mmidc.utils.config_placeholders import fill_placeholders

ConfigType = Union[str, os.PathLike, Config, dict]


def load_config(config: ConfigType, cfg_options: Optional[dict] = None) -> Config:
    """A :class:`~mmengine.config.Config` from a path, a dict or a Config,
    its ``{name}`` placeholders filled (:func:`mmidc.utils.fill_placeholders`)."""
    if isinstance(config, (str, os.PathLike)):
        if not Path(config).is_file():
            raise FileNotFoundError(f'config file not found: {config}')
        config = Config.fromfile(str(config))
    elif isinstance(config, dict):
        config = Config(copy.deepcopy(config))
    elif isinstance(config, Config):
        config = copy.deepcopy(config)
    else:
        raise TypeError(f'config must be a path, a dict or a Config, got '
                        f'{type(config).__name__}')
    if cfg_options:
        config.merge_from_dict(cfg_options)
    fill_placeholders(config)  # '{data_root}/...', '{vocab_file}'
    if 'model' not in config:
        raise KeyError(f'config {config.filename or "<dict>"} has no "model"')
    return config


def load_weights(model: torch.nn.Module, checkpoint: Union[str, os.PathLike],
                 strict: bool = True) -> dict:
    """Load a checkpoint (see :func:`read_checkpoint`) into ``model``;
    returns its ``meta``."""
    state, meta = read_checkpoint(checkpoint)
    load_state_dict(model, state, strict=strict, logger='current')
    return meta


def _misfit(model: torch.nn.Module, state: dict,
            checkpoint: Union[str, os.PathLike]) -> Optional[str]:
    """What differs between ``model`` and a checkpoint's ``state`` (keys and
    shapes), as the start of an error message naming the file; None when
    they fit."""
    differences = state_dict_misfit(model.state_dict(), state)
    if differences is None:
        return None
    return (f'checkpoint {os.fspath(checkpoint)!r} does not fit the '
            f'{type(model).__name__} of the config: {differences}')


def check_checkpoint_fits(model: torch.nn.Module,
                          checkpoint: Union[str, os.PathLike],
                          partial: bool = False) -> None:
    """Refuse a checkpoint whose weights do not fit ``model``.

    MMEngine loads ``load_from`` non-strictly: the weights of another model
    family would load nothing and the random model would be scored. This
    compares the checkpoint's keys and shapes with the model's.

    Args:
        model (torch.nn.Module): The built model (a DDP wrapper is
            unwrapped).
        checkpoint (str | PathLike): The file to load.
        partial (bool): Only log the differences (a deliberate partial
            load). Defaults to False.

    Raises:
        ValueError: Missing, unexpected or differently shaped weights, with
            their key prefixes and counts; the message names the file.
    """
    model = getattr(model, 'module', model)
    state, _ = read_checkpoint(checkpoint)
    message = _misfit(model, state, checkpoint)
    if message is None:
        return
    if not partial:
        raise ValueError(message + '. Is it a checkpoint of this config? '
                         'Pass --partial-load to load the weights that fit.')
    print_log(message + ' (partial load requested)', logger='current',
              level=30)


def prepare_model_cfg_for_checkpoint(cfg, checkpoint: str) -> None:
    """Make a model config build without its training-time inputs, in place.

    The trained checkpoint holds every weight and the caption vocabulary, so
    at any depth of ``cfg`` (``model.pretrained``,
    ``model.backbone.pretrained``, ``model.init_backbone_from``...):
    initialisation paths (CLIP or adaptation-stage weights the user may not
    have) become None, and a ``vocab`` option becomes the checkpoint (it holds
    ``vocab.clip_ids``) instead of the vocabulary file of the training
    captions. Used by :func:`init_model` and ``tools/test.py``.

    Args:
        cfg (dict | list): The model config (or a part of it).
        checkpoint (str): The trained checkpoint that will be loaded.
    """
    if isinstance(cfg, dict):
        for key, value in cfg.items():
            if key in ('pretrained', 'init_backbone_from'):
                cfg[key] = None
            elif key == 'vocab' and value is not None:
                cfg[key] = str(checkpoint)
            else:
                prepare_model_cfg_for_checkpoint(value, checkpoint)
    elif isinstance(cfg, list):
        for item in cfg:
            prepare_model_cfg_for_checkpoint(item, checkpoint)


def init_model(config: ConfigType,
               checkpoint: Union[str, os.PathLike, None] = None,
               device: Union[str, torch.device, None] = None,
               cfg_options: Optional[dict] = None) -> BaseModel:
    """Build the config's model, load ``checkpoint``, move it to ``device``.

    Args:
        config (str | Config | dict): config path or object.
        checkpoint (str, optional): trained weights (``.pth`` or
            ``.safetensors``). None: the model as the config initialises it
            (random heads; only for tests).
        device (str | torch.device, optional): ``'cpu'``, ``'cuda'``,
            ``'cuda:1'``... Defaults to CUDA when available, else CPU.
        cfg_options (dict, optional): overrides merged into the config.

    Returns:
        BaseModel: the model in eval mode, config in ``model.cfg``.

    Raises:
        ValueError: ``checkpoint`` does not fit the model (a checkpoint of
            the other stage): the message names the file, the model and the
            weights that differ; or ``device`` is not a device torch knows,
            or a GPU that torch does not see.
    """
    if device is not None and not isinstance(device, torch.device):
        try:
            torch.device(device)
        except (RuntimeError, TypeError):
            raise ValueError(
                f"device={device!r} is not a device: give 'cpu', 'cuda' or "
                "'cuda:N' (--device on the command line), or leave it unset"
            ) from None
    if str(device).startswith('cuda') and not torch.cuda.is_available():
        raise ValueError(f'device={device!r}, but torch sees no CUDA GPU here: '
                         "use device='cpu' (--device cpu) or leave it unset")
    import mmidc  # noqa: F401  (registers every component)
    from mmidc.registry import MODELS
    cfg = load_config(config, cfg_options)
    init_default_scope(cfg.get('default_scope', 'mmidc'))
    model_cfg = copy.deepcopy(cfg.model)
    if checkpoint is not None:
        state, meta = read_checkpoint(checkpoint)  # fail fast, before building
        prepare_model_cfg_for_checkpoint(model_cfg, checkpoint)
    model = MODELS.build(model_cfg)
    if checkpoint is not None:
        try:
            load_state_dict(model, state, strict=True, logger='current')
        except RuntimeError as error:  # MMEngine's list of every key
            message = _misfit(model, state, checkpoint)
            if message is None:
                raise
            raise ValueError(
                message + '. Is it a checkpoint of this config? A captioning '
                "run's checkpoint goes with its captioning config "
                "(IDCInferencer), an adaptation run's with its adaptation "
                'config (IDCRetrievalInferencer).') from error
        model.checkpoint_meta = meta
        print_log(f'loaded {checkpoint}', logger='current')
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'
    model.cfg = cfg
    model._config = cfg  # what MMPretrain's inferencers read
    return model.to(device).eval()
