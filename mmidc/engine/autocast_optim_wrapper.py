"""bf16 autocast training on any device, fp32 master weights."""
from contextlib import contextmanager

import torch
import torch.nn as nn
from mmengine.optim import OptimWrapper

from mmidc.registry import OPTIM_WRAPPERS


@OPTIM_WRAPPERS.register_module()
class AutocastOptimWrapper(OptimWrapper):
    """An :class:`~mmengine.optim.OptimWrapper` that runs the forward pass
    under ``torch.autocast``.

    MMEngine's ``AmpOptimWrapper`` only runs on accelerators. bf16 has fp32's
    exponent range, so it needs no loss scaling and works on CPU as well;
    the parameters and optimizer state stay fp32 (autocast only lowers the
    precision of the matmuls).

    Args:
        dtype (str): ``'bfloat16'`` (default) or ``'float16'`` (GPU only; use
            MMEngine's ``AmpOptimWrapper`` for loss scaling).
        **kwargs: Passed to :class:`~mmengine.optim.OptimWrapper`.
    """

    def __init__(self, dtype: str = 'bfloat16', **kwargs):
        super().__init__(**kwargs)
        if dtype not in ('bfloat16', 'float16'):
            raise ValueError(f"AutocastOptimWrapper: dtype must be 'bfloat16' "
                             f"or 'float16', got {dtype!r}")
        self.cast_dtype = getattr(torch, dtype)

    @contextmanager
    def optim_context(self, model: nn.Module):
        device = next(model.parameters()).device.type
        with super().optim_context(model), torch.autocast(
                device_type=device, dtype=self.cast_dtype):
            yield
