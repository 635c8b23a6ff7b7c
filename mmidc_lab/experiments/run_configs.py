"""The configs of a pipeline's stages: ``KEY=VALUE`` options merged as
``--cfg-options`` merges them, the model settings a finished stage is checked
against, the metric key of its val-best checkpoint, and the test config of a
stage."""
import os
import os.path as osp
from typing import Optional, Sequence

from mmengine.config import Config, DictAction

from . import ExperimentError

__all__ = ['parse_options', 'load_config', 'model_settings', 'save_best_key',
           'compose_test_config']


def parse_options(options: Sequence[str]) -> dict:
    """``['a.b=1', 'c=[1,2]']`` -> ``{'a.b': 1, 'c': [1, 2]}``, as
    ``--cfg-options`` parses them.

    Raises:
        ExperimentError: An option is not ``KEY=VALUE``.
    """
    parsed = {}
    for option in options:
        key, sep, value = option.partition('=')
        if not sep or not key:
            raise ExperimentError(f'option {option!r} is not KEY=VALUE')
        parsed[key] = DictAction._parse_iterable(value)
    return parsed


def load_config(config_file: str, options: Sequence[str] = ()) -> Config:
    """A config with ``options`` (``KEY=VALUE`` strings) merged in."""
    cfg = Config.fromfile(config_file)
    if options:
        cfg.merge_from_dict(parse_options(options))
    return cfg


def model_settings(config_file: str, options: Sequence[str] = ()) -> dict:
    """A config's ``model`` as a dict, without the run's
    ``init_backbone_from`` (a pipeline passes it on the command line)."""
    model = load_config(config_file, options).get('model')
    model = model.to_dict() if model is not None else {}
    model.pop('init_backbone_from', None)
    return model


def save_best_key(config_file: str, options: Sequence[str] = ()) -> str:
    """The metric key a config's checkpoint hook keeps the best of.

    Raises:
        ExperimentError: The config names no key (``save_best`` unset or
            ``'auto'``), so no val-best checkpoint could be picked.
    """
    hooks = load_config(config_file, options).get('default_hooks', {})
    key = hooks.get('checkpoint', {}).get('save_best')
    if isinstance(key, (list, tuple)):
        key = key[0] if key else None
    if not key or key == 'auto':
        raise ExperimentError(
            f'{config_file}: default_hooks.checkpoint.save_best must name a '
            f'metric key (got {key!r}) for the pipeline to pick the val-best '
            'checkpoint')
    return key


def compose_test_config(config: str, options: Sequence[str], work_dir: str,
                        dataset_config: Optional[str] = None,
                        truth: bool = True) -> str:
    """Write the test config of a stage to ``work_dir``.

    Args:
        config (str): The stage's config.
        options (Sequence[str]): Its ``KEY=VALUE`` options.
        work_dir (str): Where the config, the scores and the predictions go.
        dataset_config (str, optional): Test the loader and evaluators of
            this config instead.
        truth (bool): Add ``CaptionTruthMetric`` where absent.

    Returns:
        str: The path of the written config.
    """
    cfg = load_config(config, options)
    if dataset_config is not None:
        data = load_config(dataset_config)
        cfg.test_dataloader = data.test_dataloader
        cfg.test_evaluator = data.test_evaluator
        # the folder settings they read from (e.g. shifted_root), so that
        # the test command's data_root check knows the second folder
        for key, value in data.items():
            if key.endswith('_root') and key != 'data_root':
                cfg[key] = value
    evaluators = cfg.test_evaluator
    evaluators = list(evaluators) if isinstance(evaluators, (list, tuple)) \
        else [evaluators]
    for evaluator in evaluators:
        if evaluator['type'] == 'IDCMetric':
            evaluator['output_dir'] = work_dir
    if truth and not any(e['type'] == 'CaptionTruthMetric'
                         for e in evaluators):
        evaluators.append(dict(type='CaptionTruthMetric',
                               data_root=cfg.test_dataloader.dataset.data_root))
    cfg.test_evaluator = evaluators
    os.makedirs(work_dir, exist_ok=True)
    path = osp.join(work_dir, 'test_config.py')
    cfg.dump(path)
    return path
