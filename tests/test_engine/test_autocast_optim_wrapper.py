"""Mixed-precision training steps of the tiny captioner.

CPU: bf16 autocast (``AutocastOptimWrapper``): the matmuls run in bf16, the
weights and the optimizer stay fp32, the losses stay finite and close to the
fp32 step's. CUDA: MMEngine's ``AmpOptimWrapper`` in fp16 and bf16 with
dynamic loss scaling: the scale grows after clean steps and backs off (and
the update is skipped) when the scaled gradients overflow.
"""
import copy

import pytest
import torch
from mmengine.optim import AmpOptimWrapper, OptimWrapper
from mmpretrain.structures import DataSample

import mmidc  # noqa: F401  (registries)
from mmidc.engine import AutocastOptimWrapper
from mmidc.text import clip_tokenizer
from mmidc.registry import MODELS
from tests.helpers.tiny_models import CAPTIONS, captioner_cfg


def tiny_captioner(device: str):
    torch.manual_seed(0)
    cfg = captioner_cfg()['model']
    cfg['head']['dropout'] = 0.0
    return MODELS.build(cfg).to(device).train()


def batch(size: int = 4) -> dict:
    gen = torch.Generator().manual_seed(1)
    tokens = clip_tokenizer()(CAPTIONS, 12)  # [4, 12]
    samples = []
    for i in range(size):
        ds = DataSample(metainfo=dict(gt_captions=[CAPTIONS[i % 4]]))
        ds.set_field(tokens[i % 4], 'text_tokens')
        samples.append(ds)
    inputs = [torch.randint(0, 256, (2, 3, 32, 32), dtype=torch.uint8, generator=gen)
              for _ in range(size)]
    return dict(inputs=inputs, data_samples=samples)


def steps(model, wrapper, n: int) -> list:
    data = batch()
    return [model.train_step(copy.deepcopy(data), wrapper)['loss'].item()
            for _ in range(n)]


def test_bf16_autocast_steps_on_cpu():
    ref = tiny_captioner('cpu')
    fp32 = steps(ref, OptimWrapper(torch.optim.AdamW(ref.parameters(), lr=1e-3)), 3)
    model = tiny_captioner('cpu')
    wrapper = AutocastOptimWrapper(
        dtype='bfloat16', optimizer=torch.optim.AdamW(model.parameters(), lr=1e-3))
    seen = []
    hook = model.head.decoder[0].ffn[0].register_forward_hook(
        lambda module, args, out: seen.append(out.dtype))
    before = model.head.word_embed.weight.detach().clone()
    bf16 = steps(model, wrapper, 3)
    hook.remove()
    assert seen and set(seen) == {torch.bfloat16}  # matmuls in bf16
    assert all(p.dtype == torch.float32 for p in model.parameters())  # fp32 masters
    assert not torch.equal(model.head.word_embed.weight, before)  # updated
    assert all(torch.isfinite(torch.tensor(bf16)))
    assert bf16 == pytest.approx(fp32, rel=3e-2)  # bf16 rounding only


@pytest.mark.cuda
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_amp_optim_wrapper_on_cuda(dtype):
    """Dynamic loss scaling: x2 after every ``growth_interval`` clean steps."""
    model = tiny_captioner('cuda')
    wrapper = AmpOptimWrapper(
        dtype=dtype, optimizer=torch.optim.AdamW(model.parameters(), lr=1e-3),
        loss_scale=dict(init_scale=2.**10, growth_interval=2))
    losses = steps(model, wrapper, 4)
    assert all(torch.isfinite(torch.tensor(losses)))
    assert wrapper.loss_scaler.get_scale() == 2.**12  # grew twice, no overflow
    assert all(torch.isfinite(p).all() for p in model.parameters())
    state = wrapper.state_dict()
    assert state['loss_scaler']['scale'] == 2.**12  # checkpointed with the optimizer


@pytest.mark.cuda
def test_fp16_overflow_backs_off_and_skips_the_update():
    """A scale that overflows fp16 gradients: the step is skipped (weights
    unchanged), the scale halves, and training goes on with finite losses."""
    model = tiny_captioner('cuda')
    wrapper = AmpOptimWrapper(
        dtype='float16', optimizer=torch.optim.AdamW(model.parameters(), lr=1e-3),
        loss_scale=dict(init_scale=2.**60, growth_interval=1000))
    before = [p.detach().clone() for p in model.parameters()]

    def unchanged():
        return all(torch.equal(a, p) for a, p in zip(before, model.parameters()))

    losses = steps(model, wrapper, 1)
    assert wrapper.loss_scaler.get_scale() == 2.**59  # halved
    assert unchanged()  # the overflowing step was skipped
    for _ in range(60):  # halving until the scaled gradients fit in fp16
        losses += steps(model, wrapper, 1)
        if not unchanged():
            break
    assert not unchanged() and wrapper.loss_scaler.get_scale() < 2.**59
    assert all(torch.isfinite(torch.tensor(losses)))
    assert all(torch.isfinite(p).all() for p in model.parameters())
