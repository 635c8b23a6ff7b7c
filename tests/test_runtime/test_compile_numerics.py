"""``--compile`` (MMEngine's ``compile`` key: ``torch.compile`` of
``model.train_step``, whose forward + loss is the compiled graph; the
backward and the optimizer step run as they do without it) computes what
the eager step computes: a tiny adaptation model's forward + loss, compiled
with the default (inductor) backend, gives the eager losses and gradients to
float32 rounding.

Slow (inductor compiles C++ kernels on a CPU: tens of seconds), so outside
the default run: ``pytest -m slow tests/test_runtime/test_compile_numerics.py``.
"""
import copy
import shutil

import pytest
import torch
from mmengine.optim import OptimWrapper
from mmengine.registry import init_default_scope

from tests.helpers.tiny_models import retriever_cfg

#: Compiled against eager, float32: the compiled graph fuses and reorders
#: operations (a different rounding), nothing more.
RTOL, ATOL = 1e-4, 1e-6

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which('g++') is None and shutil.which('c++') is None,
        reason="torch.compile's CPU backend (inductor) builds C++ kernels: "
        'no C++ compiler (g++ / c++) on PATH'),
]


def tiny_adaptation_step():
    """A tiny retriever, its optimizer and a synthetic batch (uint8 pairs,
    caption tokens), all on the CPU."""
    from mmidc.registry import MODELS
    from mmidc_lab.benchmarks.workloads import synthetic_batch
    init_default_scope('mmidc')
    torch.manual_seed(0)
    model = MODELS.build(copy.deepcopy(retriever_cfg()['model'])).train()
    wrapper = OptimWrapper(
        optimizer=torch.optim.SGD(model.parameters(), lr=0.5),
        clip_grad=dict(max_norm=1.0))
    return model, wrapper, synthetic_batch(model, batch_size=4, context_length=16)


def test_compiled_forward_and_loss_give_the_eager_loss_and_gradients():
    """The model's forward + loss (``mode='loss'``), compiled, against eager:
    the same losses and gradients on the same batch, twice (the second call
    runs the compiled graph without compiling)."""
    from torch._inductor import config as inductor_config
    torch._dynamo.reset()
    model, _, batch = tiny_adaptation_step()
    data = model.data_preprocessor(batch, training=True)
    compiled = torch.compile(model)
    with inductor_config.patch(compile_threads=1):  # no worker pool
        for _ in range(2):
            results = []
            for forward in (model, compiled):
                model.zero_grad(set_to_none=True)
                losses = forward(**data, mode='loss')
                sum(v for k, v in losses.items() if 'loss' in k).backward()
                grads = {n: p.grad.clone() for n, p in model.named_parameters()
                         if p.grad is not None}
                results.append(({k: v.detach() for k, v in losses.items()}, grads))
            (eager_losses, eager_grads), (losses, grads) = results
            assert losses.keys() == eager_losses.keys() and 'loss' in ''.join(losses)
            for key in losses:
                torch.testing.assert_close(losses[key], eager_losses[key], rtol=RTOL,
                                           atol=ATOL, msg=key)
            assert grads.keys() == eager_grads.keys() and grads
            for name in grads:
                torch.testing.assert_close(grads[name], eager_grads[name], rtol=RTOL,
                                           atol=ATOL, msg=name)
