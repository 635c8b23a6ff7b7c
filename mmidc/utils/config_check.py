"""Catch config mistakes before a run starts."""
import difflib
import inspect

from mmengine.config import Config
from mmengine.runner import Runner

# Top-level names a Runner config may hold besides Runner's own arguments.
_CONVENTIONAL_KEYS = {'_base_', 'runner_type', 'launcher', 'work_dir'}


def runner_keys() -> set:
    """The keyword arguments of :class:`mmengine.runner.Runner`."""
    return set(inspect.signature(Runner.__init__).parameters) - {'self'}


def check_config(cfg: Config) -> None:
    """Fail early on a top-level key that looks like a misspelt Runner key.

    Configs may define their own helper variables (``data_root``,
    ``train_pipeline`` …), so unknown keys alone are fine; a key that is
    not a Runner argument but is close to one (``train_dataloder``,
    ``val_evalutor``) is almost certainly a typo that MMEngine would
    silently ignore, so it raises ``KeyError`` naming the key. An odd
    training batch size with ``PairedSceneSampler``, and a caption head's
    ``loss_reduction='paired_scene_sum'`` without that sampler, are a
    ``ValueError``; so are a non-numeric optimizer setting
    (``optim_wrapper.optimizer.lr='abc'``) and a training length or interval
    that is not a positive integer (``train_cfg.max_epochs=-3``).
    """
    known = runner_keys() | _CONVENTIONAL_KEYS
    for key in cfg.keys():
        if key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.85)
        if close:
            raise KeyError(f'config key {key!r} is not a Runner setting; '
                           f'did you mean {close[0]!r}?')
    _check_paired_scene_batches(cfg)
    _check_numbers(cfg)


def _check_paired_scene_batches(cfg: Config) -> None:
    """``PairedSceneSampler`` keeps a scene's two pairs in one batch only
    when the batch size is even; the paired-scene loss reads its order."""
    loader = cfg.get('train_dataloader') or {}
    sampler = loader.get('sampler') or {}
    batch_size = loader.get('batch_size', 1)
    head = (cfg.get('model') or {}).get('head') or {}
    if (head.get('loss_reduction') == 'paired_scene_sum'
            and sampler.get('type') != 'PairedSceneSampler'):
        raise ValueError(
            "model.head.loss_reduction='paired_scene_sum' reads the batch as "
            '(change, no-change) pairs of scenes: it needs '
            "train_dataloader.sampler=dict(type='PairedSceneSampler'), got "
            f"{sampler.get('type')!r} (use loss_reduction='mean' with it)")
    if sampler.get('type') == 'PairedSceneSampler' and batch_size % 2:
        raise ValueError(f'train_dataloader.batch_size={batch_size} must be '
                         f'even with PairedSceneSampler (each scene gives a '
                         f'change and a no-change pair)')


_NUMERIC_OPTIMIZER_KEYS = ('lr', 'weight_decay', 'momentum', 'eps',
                           'dampening', 'alpha', 'betas')
_POSITIVE_LOOP_KEYS = ('max_epochs', 'max_iters', 'val_interval')


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_numbers(cfg: Config) -> None:
    """Optimizer settings are numbers; loop lengths positive integers."""
    optimizer = (cfg.get('optim_wrapper') or {}).get('optimizer') or {}
    for key in _NUMERIC_OPTIMIZER_KEYS:
        if key not in optimizer:
            continue
        value = optimizer[key]
        values = value if key == 'betas' and isinstance(
            value, (list, tuple)) else [value]
        if not all(_is_number(v) for v in values):
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
    settings (:func:`mmidc.datasets.resolve_loader_defaults`)."""
    import os.path as osp

    from mmidc.datasets.loader_setup import resolve_loader_defaults
    cfg.launcher = launcher
    use_gloo_without_cuda(cfg)
    resolve_loader_defaults(cfg)
    if work_dir is not None:
        cfg.work_dir = work_dir
    elif cfg.get('work_dir', None) is None:
        cfg.work_dir = osp.join('./work_dirs',
                                osp.splitext(osp.basename(config_path))[0])
