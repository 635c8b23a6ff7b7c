"""The optimizer-wrapper and compile settings behind tools/train.py's flags."""
import pytest
from mmengine.config import Config

from mmidc.runtime.amp import amp_optim_wrapper
from mmidc.runtime.step_options import use_compile, use_fused_optimizer

WRAPPER = dict(type='OptimWrapper', optimizer=dict(type='Adam', lr=1e-4),
               paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)}))


def test_fused_optimizer():
    fused = use_fused_optimizer(WRAPPER)
    assert fused['optimizer'] == dict(type='Adam', lr=1e-4, fused=True, foreach=None)
    assert fused['paramwise_cfg'] == WRAPPER['paramwise_cfg']
    assert 'fused' not in WRAPPER['optimizer']  # the input is left alone
    with pytest.raises(ValueError, match='LAMB'):
        use_fused_optimizer(dict(optimizer=dict(type='LAMB')))


def test_amp_choices():
    assert amp_optim_wrapper(WRAPPER, 'cuda')['type'] == 'AmpOptimWrapper'
    assert amp_optim_wrapper(WRAPPER, 'cuda', 'fp16')['loss_scale'] == 'dynamic'
    bf16 = amp_optim_wrapper(WRAPPER, 'cuda', 'bf16')
    assert (bf16['type'], bf16['dtype']) == ('AutocastOptimWrapper', 'bfloat16')
    assert amp_optim_wrapper(WRAPPER, 'cpu')['type'] == 'AutocastOptimWrapper'
    with pytest.raises(ValueError, match='GPU'):
        amp_optim_wrapper(WRAPPER, 'cpu', 'fp16')
    with pytest.raises(ValueError, match='amp dtype'):
        amp_optim_wrapper(WRAPPER, 'cpu', 'int8')
    custom = dict(WRAPPER, type='AmpOptimWrapper', dtype='bfloat16')
    assert amp_optim_wrapper(custom, 'cuda', 'fp16') == custom  # kept


def test_compile_settings():
    cfg = Config(dict(custom_hooks=[dict(type='EpochReseedHook')]))
    use_compile(cfg)
    assert cfg.compile is True
    assert [h['type'] for h in cfg.custom_hooks] == ['EpochReseedHook', 'CompileTimerHook']
    cfg = Config(dict(compile=dict(backend='eager')))
    use_compile(cfg, 'max-autotune')
    use_compile(cfg, 'max-autotune')  # idempotent: one timer hook
    assert cfg.compile == dict(backend='eager', mode='max-autotune')
    assert [h['type'] for h in cfg.custom_hooks] == ['CompileTimerHook']
