"""Mixed precision settings: bf16 autocast on CPU, AMP on GPU."""
from typing import Optional

import torch

#: ``--amp`` values of tools/train.py and what they mean.
AMP_DTYPES = ('auto', 'fp16', 'bf16')


def amp_optim_wrapper(optim_wrapper: dict, device: Optional[str] = None,
                      dtype: str = 'auto') -> dict:
    """Turn an ``OptimWrapper`` config into a mixed-precision one.

    - ``dtype='fp16'`` (the ``'auto'`` choice on CUDA): MMEngine's
      ``AmpOptimWrapper``, fp16 autocast with dynamic loss scaling.
    - ``dtype='bf16'`` (the ``'auto'`` choice on CPU):
      :class:`~mmidc.engine.AutocastOptimWrapper`, bf16 autocast without
      loss scaling (bf16 has fp32's exponent range, so no gradient
      underflows; and without a scaler there is no per-step check for
      infinite gradients, a host-device synchronisation on CUDA).

    Master weights and optimizer state stay fp32 in every case.

    Args:
        optim_wrapper (dict): The config's ``optim_wrapper``.
        device (str, optional): ``'cuda'`` or ``'cpu'``; default: CUDA when
            available.
        dtype (str): ``'auto'``, ``'fp16'`` or ``'bf16'``.
    """
    if dtype not in AMP_DTYPES:
        raise ValueError(f'amp dtype must be one of {AMP_DTYPES}, got {dtype!r}')
    if device is None:
        device = 'cuda' if torch.cuda.is_available() else 'cpu'
    on_cuda = device.startswith('cuda')
    if dtype == 'auto':
        dtype = 'fp16' if on_cuda else 'bf16'
    if dtype == 'fp16' and not on_cuda:
        raise ValueError('fp16 mixed precision needs a GPU; use bf16 on CPU')
    cfg = dict(optim_wrapper)
    if cfg.get('type', 'OptimWrapper') not in ('OptimWrapper',
                                               'mmengine.OptimWrapper'):
        return cfg  # already a mixed-precision (or custom) wrapper
    if dtype == 'fp16':
        cfg.update(type='AmpOptimWrapper', loss_scale='dynamic')
    else:
        cfg.update(type='AutocastOptimWrapper', dtype='bfloat16')
    return cfg
