"""Name the settings a resumed run changes, and refuse the ones that break
its schedule (``_SCHEDULE`` and :data:`META_KEYS`) unless the config sets
``resume_allow_changes=True`` (``tools/train.py --resume-allow-changes``).

A checkpoint's ``meta['cfg']`` holds the config of the run that wrote it.
The resumed run uses the config's values, except the optimizer's settings
(the saved optimizer state holds them), the parameter schedulers (their
saved state) and ``randomness.seed`` (MMEngine resumes the saved seed).
"""
import logging
import os
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from mmengine.config import Config
from mmengine.logging import print_log

from mmidc.utils.checkpoint_io import state_dict_misfit


class ResumeRefusedError(RuntimeError):
    """A resume that would not continue the checkpoint's run (the commands
    print its message without a traceback)."""


# Settings that are not the run's: where it runs, how it was started.
_IGNORED = ('work_dir', 'resume', 'load_from', 'experiment_name', 'launcher',
            'resume_allow_changes', 'gpu_ids')
# Settings whose change breaks the schedule (a key or a key's prefix).
_SCHEDULE = ('train_dataloader.batch_size', 'train_cfg.max_epochs',
             'train_cfg.max_iters', 'train_cfg.by_epoch', 'train_cfg.type',
             'param_scheduler')
# Settings whose checkpoint value the resumed run keeps.
_CHECKPOINT_WINS = ('optim_wrapper.optimizer.', 'param_scheduler',
                    'randomness.seed')
# Written into each checkpoint's meta by SafeCheckpointHook.
META_KEYS = ('train_set_size', 'world_size')


def _flatten(value: Any, prefix: str = '') -> Dict[str, Any]:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(_flatten(item, f'{prefix}{key}.'))
        return out
    return {prefix[:-1]: value}


def _canonical(value: Any) -> Any:
    """The value with its dicts' keys sorted and its tuples lists (a
    config's text sorts the keys of the dicts in lists)."""
    if isinstance(value, dict):
        return sorted((str(k), _canonical(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def _matches(key: str, patterns) -> bool:
    return any(key == p or key.startswith(p if p.endswith('.') else p + '.')
               for p in patterns)


def config_differences(saved: dict, current: dict) -> List[Tuple[str, Any,
                                                                Any]]:
    """The settings that differ between two configs (as dicts).

    Args:
        saved (dict): The checkpoint's config.
        current (dict): The resumed run's config.

    Returns:
        list[tuple]: ``(key, saved value, current value)``, sorted by key;
        a missing setting's value is ``'<unset>'``.
    """
    a, b = _flatten(saved), _flatten(current)
    out = []
    for key in sorted(set(a) | set(b)):
        if _matches(key, _IGNORED):
            continue
        old, new = a.get(key, '<unset>'), b.get(key, '<unset>')
        if repr(_canonical(old)) != repr(_canonical(new)):
            out.append((key, old, new))
    return out


def _read_saved_config(text: str) -> dict:
    """A checkpoint's config text as a dict, without importing its
    ``custom_imports`` (a module this process may not have: the settings
    are compared all the same)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'checkpoint_config.py')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return Config.fromfile(path, import_custom_modules=False).to_dict()


def check_resume_config(runner, checkpoint: dict) -> None:
    """Log every setting of ``runner.cfg`` that differs from the resumed
    checkpoint's config, with the value the run uses; refuse schedule
    changes unless ``resume_allow_changes=True``.

    Args:
        runner (Runner): The runner that resumes (its train loader built).
        checkpoint (dict): The loaded checkpoint.

    Raises:
        ResumeRefusedError: A change that breaks the schedule, not allowed; the
            message names each one and the option that allows it.
    """
    meta = checkpoint.get('meta') or {}
    if not meta.get('cfg'):
        return
    diffs = []
    try:
        saved = _read_saved_config(meta['cfg'])
    except Exception as err:  # a config that does not read back
        print_log(f'resume: the checkpoint\'s config does not read back '
                  f'({type(err).__name__}: {err}); its settings are not '
                  'compared (the training set\'s size and the number of '
                  'processes are)', logger='current', level=logging.WARNING)
    else:
        diffs = config_differences(saved, runner.cfg.to_dict())
    loader = runner.train_dataloader
    for key, now in (('train_set_size', len(loader.dataset)),
                     ('world_size', runner.world_size)):
        if key in meta and meta[key] != now:
            diffs.append((key, meta[key], now))
    if not diffs:
        return
    allowed = bool(runner.cfg.get('resume_allow_changes', False))
    breaking = [d for d in diffs if _matches(d[0], _SCHEDULE)
                or d[0] in META_KEYS]
    lines = []
    for key, old, new in diffs:
        used = 'checkpoint' if _matches(key, _CHECKPOINT_WINS) else 'config'
        value = old if used == 'checkpoint' else new
        mark = ' [breaks the schedule]' if (key, old, new) in breaking else ''
        lines.append(f'  {key}: checkpoint {old!r}, config {new!r} -> the '
                     f'run uses the {used}\'s {value!r}{mark}')
    text = '\n'.join(lines)
    if breaking and not allowed:
        raise ResumeRefusedError(
            f'cannot resume: {len(breaking)} setting(s) differ from the '
            "checkpoint's run and break its schedule (the iterations left, "
            'the learning-rate curve):\n' + text + '\nResume with the '
            "checkpoint's settings, start a new run (another work dir), or "
            'allow it with tools/train.py --resume-allow-changes (or '
            '--cfg-options resume_allow_changes=True).')
    print_log(
        f"resume: {len(diffs)} setting(s) differ from the checkpoint's "
        'config:\n' + text, logger='current', level=logging.WARNING)


def check_resume_weights(runner, checkpoint: dict) -> None:
    """Refuse a resume whose checkpoint's weights do not fit the model.

    MMEngine resumes non-strictly: a weight of another shape, or one the
    checkpoint lacks, would stay at its random start while the run goes on
    with the checkpoint's optimizer state, which is no continuation of the
    checkpoint's run (``resume_allow_changes`` does not allow it either).

    Args:
        runner (Runner): The runner that resumes (its model built).
        checkpoint (dict): The loaded checkpoint.

    Raises:
        ResumeRefusedError: Missing, unexpected or differently shaped
            weights, with their key prefixes and counts; the message names
            the checkpoint and how to start from its weights instead.
    """
    from mmengine.model import is_model_wrapper
    from mmengine.runner.checkpoint import get_state_dict
    state = checkpoint.get('state_dict')
    if not isinstance(state, dict):
        return
    model = runner.model.module if is_model_wrapper(
        runner.model) else runner.model
    differences = state_dict_misfit(get_state_dict(model), state)
    if differences is None:
        return
    source = runner.cfg.get('load_from') or _pointed_checkpoint(
        runner.work_dir)
    raise ResumeRefusedError(
        f'cannot resume from {source}: its weights do not fit the '
        f'{type(model).__name__} of the config: {differences}' +
        ". A resume continues the checkpoint's model: resume with the "
        "checkpoint's model settings, or start a new run (another work "
        'dir) from its weights with load_from (or the model\'s '
        'init_backbone_from).')


def _pointed_checkpoint(work_dir: str) -> str:
    """The checkpoint ``work_dir/last_checkpoint`` names, or the pointer."""
    pointer = os.path.join(work_dir, 'last_checkpoint')
    try:
        with open(pointer) as f:
            return f.read().strip() or pointer
    except OSError:
        return pointer


def checkpoint_meta(runner) -> Dict[str, Optional[int]]:
    """What :func:`check_resume_config` compares beyond the config: the
    training set's size and the number of processes.

    Args:
        runner (Runner): The training runner.

    Returns:
        dict: ``train_set_size`` (when the loader has a data set) and
        ``world_size``.
    """
    meta = {'world_size': runner.world_size}
    loop = getattr(runner, '_train_loop', None)
    loader = getattr(loop, 'dataloader', None)
    if loader is not None and hasattr(loader, 'dataset'):
        meta['train_set_size'] = len(loader.dataset)
    return meta
