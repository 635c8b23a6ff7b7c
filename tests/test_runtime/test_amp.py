"""mmidc.runtime.amp: the optimizer wrapper behind tools/train.py's --amp
(the wrapped steps: tests/test_engine/test_autocast_optim_wrapper.py)."""
import pytest

from mmidc.runtime.amp import amp_optim_wrapper

WRAPPER = dict(type='OptimWrapper', optimizer=dict(type='Adam', lr=1e-4),
               paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)}))


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
