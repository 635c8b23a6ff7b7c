"""mmidc.runtime.step_options: the fused-optimizer and compile settings
behind tools/train.py's --fused-optim and --compile."""
import pytest
from mmengine.config import Config

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
