"""Mixed precision settings: bf16 autocast on CPU, AMP on GPU."""
import torch


def amp_optim_wrapper(optim_wrapper: dict, device: str = None) -> dict:
    """Turn an ``OptimWrapper`` config into a mixed-precision one.

    On CUDA: MMEngine's ``AmpOptimWrapper`` (fp16 with dynamic loss scaling).
    On CPU: :class:`~mmidc.engine.AutocastOptimWrapper` with bf16 (fp16 is
    very slow on CPU). Master weights stay fp32 in both cases.
    """
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'
    cfg = dict(optim_wrapper)
    if cfg.get('type', 'OptimWrapper') not in ('OptimWrapper',
                                               'mmengine.OptimWrapper'):
        return cfg  # already a mixed-precision (or custom) wrapper
    if device.startswith('cuda'):
        cfg.update(type='AmpOptimWrapper', loss_scale='dynamic')
    else:
        cfg.update(type='AutocastOptimWrapper', dtype='bfloat16')
    return cfg
