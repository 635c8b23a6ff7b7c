"""Catch config mistakes before a run starts."""
import ast
import difflib
import importlib.util
import inspect
import os.path as osp
import sys
from typing import Dict, Iterator, List, Optional, Tuple

from mmengine.config import Config
from mmengine.runner import Runner

from mmidc.datasets.image_io import to_hw
from .data_root import LOADERS, check_root_key_typos, config_tree

# Top-level names a Runner config may hold besides Runner's own arguments.
_CONVENTIONAL_KEYS = {'_base_', 'runner_type', 'launcher', 'work_dir'}


def check_config(cfg: Config) -> None:
    """Fail early on config mistakes that MMEngine would ignore or report
    far from their cause.

    A top-level key that is not a Runner argument but is close to one
    (``train_dataloder``; helper variables such as ``train_pipeline`` are
    fine) is a ``KeyError`` naming the key; so is a misspelt root setting
    (:func:`~.data_root.check_root_key_typos`). Each check below is a
    ``ValueError`` naming the config key: :func:`check_components`,
    :func:`check_custom_imports`, a child's sampler merged into its base's
    ``SampleSeedSampler``, ``PairedSceneSampler`` with an odd batch size or
    ``PairedSceneCrossEntropyLoss`` without it, a non-numeric optimizer
    setting (``lr='abc'``), a loop length that is not a positive integer
    (``train_cfg.max_epochs=-3``), :func:`check_image_size`;
    :func:`check_schedule_end` warns.
    """
    known = _CONVENTIONAL_KEYS | (
        set(inspect.signature(Runner.__init__).parameters) - {'self'})
    for key in cfg.keys():
        if key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.85)
        if close:
            raise KeyError(f'config key {key!r} is not a Runner setting; '
                           f'did you mean {close[0]!r}?')
    check_root_key_typos(cfg)
    check_components(cfg)
    check_custom_imports(cfg)
    _check_training_sampler(cfg)
    _check_paired_scene_batches(cfg)
    _check_numbers(cfg)
    check_image_size(cfg)
    check_schedule_end(cfg)


#: Top-level settings MMEngine gives a default ``type`` when they have none.
_DEFAULT_TYPE_KEYS = {'optim_wrapper', 'train_cfg', 'val_cfg', 'test_cfg',
                      'log_processor', 'model_wrapper_cfg'}


def base_files(filename: str) -> List[str]:
    """The local base configs a config file names in ``_base_`` (read from
    its text; ``package::path`` bases and a file without a literal
    ``_base_`` give none; MMEngine reports a bad base when it reads the
    config)."""
    for node in getattr(config_tree(filename), 'body', ()):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == '_base_'
                for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return []
            names = [value] if isinstance(value, str) else list(value)
            return [osp.normpath(osp.join(osp.dirname(filename), name))
                    for name in names
                    if isinstance(name, str) and '::' not in name]
    return []


def config_chain(filename: Optional[str]) -> List[str]:
    """Every local file of a config's inheritance tree, the config first."""
    files, todo = [], [filename] if filename else []
    while todo:
        path = todo.pop(0)
        if path in files or not osp.isfile(path):
            continue
        files.append(path)
        todo.extend(base_files(path))
    return files


def _base_configs(filename: Optional[str]) -> List[Tuple[str, dict]]:
    """``(path, content)`` of the direct base configs of a config file, each
    read with its own bases; none for a config not read from a file (or
    whose bases cannot be read: then the run's own loading reports it)."""
    if not filename or not osp.isfile(filename):
        return []
    try:
        return [(path, Config.fromfile(path, import_custom_modules=False)
                 .to_dict()) for path in base_files(filename)]
    except Exception:  # noqa: BLE001  (a lazy-import config, a bad base)
        return []


def _own_custom_imports(path: str) -> List[str]:
    """The ``custom_imports`` a config file sets itself (its text, read
    without its bases; the file read whole when the value is not a
    literal)."""
    for node in getattr(config_tree(path), 'body', ()):
        if not (isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == 'custom_imports'
                for t in node.targets)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and getattr(value.func, 'id',
                                                   None) == 'dict':
            value = ast.Dict([ast.Constant(k.arg) for k in value.keywords],
                             [k.value for k in value.keywords])
        try:
            imports = ast.literal_eval(value).get('imports')
        except (ValueError, TypeError, SyntaxError, AttributeError):
            try:
                imports = (Config.fromfile(path, import_custom_modules=False)
                           .get('custom_imports') or {}).get('imports')
            except Exception:  # noqa: BLE001
                return []
        return list(imports) if isinstance(imports, (list, tuple)) else []
    return []


def _lost_types(now: dict, base: dict, where: str) -> Iterator[Tuple[str, str]]:
    """``(key, base type)`` of each component config that has a ``type`` in
    ``base`` and a dict without one in ``now``, at any depth."""
    for key, old in base.items():
        new = now.get(key) if isinstance(now, dict) else None
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        path = f'{where}.{key}' if where else key
        if 'type' in old and 'type' not in new:
            if path not in _DEFAULT_TYPE_KEYS:
                yield path, old['type']
        else:
            yield from _lost_types(new, old, path)


def check_components(cfg: Config) -> None:
    """Every component config the run builds keeps its ``type``, every
    loader its data set.

    ``_delete_=True`` replaces a base config's dict with the child's: a
    child that meant to change one option (``model = dict(head=dict(
    _delete_=True, vocab=...))``, ``train_dataloader = dict(_delete_=True,
    batch_size=4)``) drops the ``type`` or the data set with it, and the
    run then fails with a bare ``KeyError: 'type'`` or a ``NoneType``
    length error. A key is checked against the config's base configs (its
    ``type`` there) and each loader for its ``dataset`` and ``sampler``.

    Raises:
        ValueError: naming the config key, and the type the base gave it.
    """
    model = cfg.get('model')
    if isinstance(model, dict) and 'type' not in model:
        raise ValueError('model has no "type" (the model to build)'
                         + _delete_hint())
    base: Dict[str, object] = {}
    for _, content in _base_configs(getattr(cfg, 'filename', None)):
        base.update(content)
    for key, old_type in _lost_types(cfg.to_dict(), base, ''):
        raise ValueError(f'config key {key} has no "type"; its base config '
                         f'gives type={old_type!r}' + _delete_hint())
    for key in LOADERS:
        loader = cfg.get(key)
        if not isinstance(loader, dict):
            continue
        for part in ('dataset', 'sampler'):
            if part not in loader:
                raise ValueError(f'{key} has no {part}' + _delete_hint())
            value = loader[part]
            if isinstance(value, dict) and 'type' not in value and not (
                    part == 'dataset' and 'datasets' in value):
                raise ValueError(f'{key}.{part} has no "type"'
                                 + _delete_hint())


def _delete_hint() -> str:
    return ('. A dict with _delete_=True replaces the base\'s whole dict: '
            'give it every key it needs (its type, a loader\'s dataset and '
            'sampler), or leave _delete_ out to change only the keys given')


def check_custom_imports(cfg: Config) -> None:
    """The modules a base config imports stay imported.

    MMEngine replaces a list when a child config sets it: a child's own
    ``custom_imports`` drops every import of its bases, and the components
    they register are then missing (``KeyError: 'ConvStem is not in the
    mmidc::model registry'``). An import named by a config of the chain
    that is neither in the config's ``custom_imports`` nor imported is an
    error naming it and the base that needs it.

    Raises:
        ValueError: naming the missing import and the base config.
    """
    filename = getattr(cfg, 'filename', None)
    own = set((cfg.get('custom_imports') or {}).get('imports') or [])
    needed: Dict[str, str] = {}
    for path in config_chain(filename)[1:]:
        for name in _own_custom_imports(path):
            needed.setdefault(name, path)
    for name, base in needed.items():
        if name in own or name in sys.modules:
            continue
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            continue  # an optional import of the base (allow_failed_imports)
        raise ValueError(
            f'custom_imports of {filename} does not import {name!r}, which '
            f'its base config {base} imports: a child\'s custom_imports '
            'replaces its bases\' list (MMEngine does not merge lists), and '
            f'the components {name!r} registers are then missing. Add it: '
            f'custom_imports = dict(imports=[..., {name!r}])')


def _backbone_image_size(backbone: dict) -> Optional[Tuple[int, int]]:
    """``(H, W)`` a CLIP4IDC-style backbone (one with an open_clip ``arch``)
    is built for: its ``img_size``, else its arch's; None for others."""
    if not isinstance(backbone, dict) or 'arch' not in backbone:
        return None
    size = backbone.get('img_size')
    if size is None:
        from mmidc.models.open_clip import get_clip_config
        size = get_clip_config(backbone['arch'])['vision_cfg'].get(
            'image_size', 224)  # open_clip's CLIPVisionCfg default
    return to_hw(size, 'model.backbone.img_size')


def _pipeline_sizes(cfg: Config) -> Iterator[Tuple[str, Tuple[int, int]]]:
    """``(where, (H, W))`` of each ``ResizePair`` in the loaders' pipelines
    (through wrapper data sets' ``dataset``)."""
    for loader_key in LOADERS:
        loader = cfg.get(loader_key) or {}
        dataset, where = loader.get('dataset'), f'{loader_key}.dataset'
        while isinstance(dataset, dict):
            for k, step in enumerate(dataset.get('pipeline') or []):
                if isinstance(step, dict) and step.get('type') == 'ResizePair':
                    yield (f'{where}.pipeline[{k}] (ResizePair)',
                           to_hw(step['size'], f'{where}.pipeline[{k}].size'))
            dataset, where = dataset.get('dataset'), where + '.dataset'


def check_image_size(cfg: Config) -> None:
    """The images the pipelines resize to must be the size the backbone's
    positional embeddings are for.

    A CLIP4IDC backbone built for ``(H, W)`` fed another size resizes its
    embeddings on the fly, which works only from a square grid (the tiny
    96x144 model fed 224x224 fails at the first step, far from the cause).

    Raises:
        ValueError: naming the pipeline step, both sizes and the two
            settings that fix it.
    """
    model = cfg.get('model') or {}
    expected = _backbone_image_size(model.get('backbone'))
    if expected is None:
        return
    for where, size in _pipeline_sizes(cfg):
        if size != expected:
            raise ValueError(
                f'{where} resizes images to (H, W)={size}, but '
                f'model.backbone is built for {expected} (its img_size, '
                f'else its arch\'s vision_cfg.image_size): set the '
                f'pipeline size to {expected} or model.backbone.img_size='
                f'{size}')


def check_schedule_end(cfg: Config) -> None:
    """Warn when the epoch-based learning-rate schedule does not end at
    ``train_cfg.max_epochs``.

    A scheduler with an explicit ``end`` keeps it when a child config
    raises ``max_epochs`` (the rate then stays at its final value), or cuts
    the decay short when it lowers it. Leaving ``end`` out makes MMEngine
    end the scheduler at the run's ``max_epochs``.
    """
    from mmengine.logging import print_log
    train_cfg = cfg.get('train_cfg') or {}
    max_epochs = train_cfg.get('max_epochs')
    schedulers = cfg.get('param_scheduler') or []
    if isinstance(schedulers, dict):
        schedulers = [schedulers]
    if not isinstance(max_epochs, int) or not isinstance(schedulers, list):
        return
    by_epoch = [s for s in schedulers
                if isinstance(s, dict) and s.get('by_epoch', True)]
    if any(s.get('end') is None for s in by_epoch):
        return  # MMEngine ends that one at max_epochs
    ends = [s['end'] for s in by_epoch if isinstance(s['end'], int)]
    if ends and max(ends) != max_epochs:
        print_log(
            f'param_scheduler ends at epoch {max(ends)} but '
            f'train_cfg.max_epochs={max_epochs}: the learning rate '
            + ('stays at its final value from then on'
               if max(ends) < max_epochs else 'never reaches its final value')
            + "; leave the last scheduler's end out to end it at "
            'max_epochs', logger='current', level=30)


def _check_training_sampler(cfg: Config) -> None:
    """A child config's ``sampler=dict(type=...)`` merges into its base's
    ``SampleSeedSampler`` and keeps that one's ``sampler`` key."""
    sampler = (cfg.get('train_dataloader') or {}).get('sampler')
    if (isinstance(sampler, dict) and 'sampler' in sampler
            and sampler.get('type') != 'SampleSeedSampler'):
        name = sampler.get('type')
        raise ValueError(
            f"train_dataloader.sampler: type={name!r} keeps the key "
            "sampler=... of the base config's SampleSeedSampler (a child's "
            "sampler=dict(type=...) merges into it). Set the sampler it "
            "keys: train_dataloader = dict(sampler=dict(type="
            f"'SampleSeedSampler', sampler=dict(type={name!r}, ...))), or "
            f"replace it: sampler=dict(_delete_=True, type={name!r}, ...) "
            '(a resumed run is then not exact)')


def _check_paired_scene_batches(cfg: Config) -> None:
    """``PairedSceneSampler`` keeps a scene's two pairs in one batch only
    when the batch size is even; the paired-scene loss reads its order."""
    loader = cfg.get('train_dataloader') or {}
    sampler = loader.get('sampler') or {}
    if sampler.get('type') == 'SampleSeedSampler':  # the sampler it keys
        sampler = sampler.get('sampler') or {}
    batch_size = loader.get('batch_size', 1)
    head = (cfg.get('model') or {}).get('head') or {}
    loss = head.get('loss') or {}
    if (loss.get('type') == 'PairedSceneCrossEntropyLoss'
            and sampler.get('type') != 'PairedSceneSampler'):
        raise ValueError(
            "model.head.loss=dict(type='PairedSceneCrossEntropyLoss') reads "
            'the batch as (change, no-change) pairs of scenes: it needs '
            "train_dataloader.sampler=dict(type='PairedSceneSampler'), got "
            f"{sampler.get('type')!r} (use "
            "loss=dict(type='CaptionCrossEntropyLoss') with it)")
    if sampler.get('type') == 'PairedSceneSampler' and batch_size % 2:
        raise ValueError(f'train_dataloader.batch_size={batch_size} must be '
                         f'even with PairedSceneSampler (each scene gives a '
                         f'change and a no-change pair)')


_NUMERIC_OPTIMIZER_KEYS = ('lr', 'weight_decay', 'momentum', 'eps',
                           'dampening', 'alpha', 'betas')
_POSITIVE_LOOP_KEYS = ('max_epochs', 'max_iters', 'val_interval')


def _check_numbers(cfg: Config) -> None:
    """Optimizer settings are numbers; loop lengths positive integers."""
    optimizer = (cfg.get('optim_wrapper') or {}).get('optimizer') or {}
    for key in _NUMERIC_OPTIMIZER_KEYS:
        if key not in optimizer:
            continue
        value = optimizer[key]
        values = value if key == 'betas' and isinstance(
            value, (list, tuple)) else [value]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                   for v in values):
            raise ValueError(f'optim_wrapper.optimizer.{key}={value!r} is not '
                             f'a number' + (' pair' if key == 'betas' else ''))
    train_cfg = cfg.get('train_cfg') or {}
    for key in _POSITIVE_LOOP_KEYS:
        value = train_cfg.get(key)
        if value is not None and not (isinstance(value, int)
                                      and not isinstance(value, bool)
                                      and value > 0):
            raise ValueError(f'train_cfg.{key}={value!r} must be a positive '
                             'integer')


def use_gloo_without_cuda(cfg: Config) -> None:
    """Make a distributed run work on a CPU-only machine.

    MMEngine assumes GPUs for ``launcher='pytorch'``: its ``init_dist`` calls
    ``torch.cuda.set_device`` and its DDP wrapper passes
    ``device_ids=[LOCAL_RANK]``; both fail without CUDA. Without CUDA this
    switches the backend to gloo, starts the process group from torchrun's
    environment here (MMEngine then skips ``init_dist``), and wraps the model
    in DDP without ``device_ids``.
    """
    import torch
    if cfg.get('launcher', 'none') == 'none' or torch.cuda.is_available():
        return
    env_cfg = cfg.setdefault('env_cfg', {})
    dist_cfg = env_cfg.setdefault('dist_cfg', {})
    if dist_cfg.get('backend', 'nccl') == 'nccl':
        dist_cfg['backend'] = 'gloo'
    wrapper = cfg.get('model_wrapper_cfg') or dict(
        type='MMDistributedDataParallel', broadcast_buffers=False)
    wrapper['device_ids'] = None
    cfg.model_wrapper_cfg = wrapper
    if cfg.launcher == 'pytorch' and not torch.distributed.is_initialized():
        torch.distributed.init_process_group(backend=dist_cfg['backend'])


def apply_launch_args(cfg: Config, config_path: str, launcher: str,
                      work_dir: str = None) -> None:
    """The settings tools/train.py and tools/test.py share: the launcher
    (gloo on CPU-only machines), the work dir (``--work-dir``, else the
    config's, else ``work_dirs/<config name>``) and the loaders' ``'auto'``
    settings (:func:`mmidc.runtime.loader_setup.resolve_loader_defaults`).

    Raises:
        ValueError: ``launcher='pytorch'`` in a process that torchrun did
            not start (no ``RANK`` / ``WORLD_SIZE``), naming the scripts that
            start the processes.
    """
    import os

    from mmidc.runtime.loader_setup import resolve_loader_defaults
    missing = [name for name in ('RANK', 'WORLD_SIZE')
               if name not in os.environ]
    if launcher == 'pytorch' and missing:
        raise ValueError(
            f'--launcher pytorch, but {" and ".join(missing)} are not set: '
            'this process was not started by torchrun, which sets them for '
            'each process. Start the run with bash tools/dist_train.sh '
            'CONFIG NPROC (tools/dist_test.sh CONFIG CHECKPOINT NPROC) or '
            'torchrun --nproc_per_node=NPROC tools/train.py CONFIG '
            '--launcher pytorch; for one process, leave --launcher out')
    cfg.launcher = launcher
    use_gloo_without_cuda(cfg)
    resolve_loader_defaults(cfg)
    if work_dir is not None:
        cfg.work_dir = work_dir
    elif cfg.get('work_dir', None) is None:
        cfg.work_dir = osp.join('./work_dirs',
                                osp.splitext(osp.basename(config_path))[0])


def check_caption_vocab(cfg: Config) -> None:
    """The vocabulary files the model names (``vocab='<file>.json'``) hold
    the tokens of the captions it trains on.

    Builds the training loader's caption data sets from their annotations
    (:func:`mmidc.text.vocab_file.training_captions`): tools/train.py calls
    it before the runner, :func:`check_config` does not. A file that is
    absent is left to the model's construction (its error names the tool
    that writes it).

    Raises:
        ValueError: a file of the wrong form, or one that lacks more than
            :data:`~mmidc.text.vocab_file.MAX_UNKNOWN_SHARE` of the tokens
            (:func:`~mmidc.text.vocab_file.check_vocab_covers`); a smaller
            share is logged as a warning.
    """
    from mmidc.datasets.preparation.vocab_sources import (
        model_vocab_files, training_captions)
    from mmidc.text.vocab_file import check_vocab_covers
    files = [p for p in model_vocab_files(cfg) if osp.isfile(p)]
    loader = cfg.get('train_dataloader')
    if not files or not isinstance(loader, dict) or not isinstance(
            loader.get('dataset'), dict):
        return
    captions, source = training_captions(cfg)
    if not all(isinstance(c, str) for c in captions):
        return  # token tensors: nothing to compare by text
    for path in files:
        check_vocab_covers(path, captions, source)
