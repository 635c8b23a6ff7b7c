"""Collate packed pairs into one tensor in the loader's worker."""
from typing import Sequence

import torch
from mmengine.dataset import pseudo_collate
from mmengine.registry import FUNCTIONS

# MMEngine's Runner looks collate functions up in its root FUNCTIONS registry
# (no scope), so this one is registered there (by ``import mmidc``).


@FUNCTIONS.register_module()
def idc_collate(data_batch: Sequence[dict]) -> dict:
    """``pseudo_collate``, with the pairs stacked into one uint8 tensor.

    ``inputs`` becomes ``[B, 2, 3, H, W]`` when every pair has the same
    shape (a list otherwise, as ``pseudo_collate`` gives it); the data
    samples stay a list. Stacking here runs in the data loader's worker
    processes instead of the training process, and lets a
    ``pin_memory=True`` loader pin the whole batch, which the data
    preprocessor then copies to the GPU in one asynchronous transfer.

    Use as ``collate_fn=dict(type='idc_collate')``.
    """
    batch = pseudo_collate(data_batch)
    inputs = batch.get('inputs') if isinstance(batch, dict) else None
    if (isinstance(inputs, list) and inputs
            and all(torch.is_tensor(x) for x in inputs)
            and len({(x.shape, x.dtype) for x in inputs}) == 1):
        batch['inputs'] = torch.stack(inputs)  # [B, 2, 3, H, W]
    return batch
