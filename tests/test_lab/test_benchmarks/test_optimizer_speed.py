"""The optimizer-alone timing: the schedule's groups, the rows."""
import pytest
import torch
from torch import nn

from mmidc_lab.benchmarks import optimizer_speed


class Named(nn.Module):
    """Parameter names the schedules sort into their groups: backbone
    (lr x 1e-3) or not, bias or the head's norm (no decay) or not."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 3)
        self.head = nn.Sequential(nn.Linear(3, 2), nn.LayerNorm(2))
        self.head[0].bias.requires_grad_(False)  # frozen: left out


def test_parameter_groups_follow_the_schedule():
    groups, optimizer_cfg, clip = optimizer_speed.parameter_groups(
        Named(), optimizer_speed.SCHEDULES['captioning'])
    assert optimizer_cfg['type'] == 'BertAdam' and clip == dict(max_norm=1.0)
    # one group a parameter (paramwise_cfg), in the model's order
    assert [(g['shapes'], g['lr'], g['weight_decay']) for g in groups] == [
        ([(3, 4)], pytest.approx(1e-7), 0.01), ([(3, )], pytest.approx(1e-7), 0.0),
        ([(2, 3)], 1e-4, 0.01), ([(2, )], 1e-4, 0.0), ([(2, )], 1e-4, 0.0)]


def test_rows_time_the_clip_and_each_implementation():
    rows = optimizer_speed.measure_optimizer(
        Named(), 'captioning', 'named', steps=1,
        extra_classes=['tests.helpers.reference_bert_adam:ReferenceBertAdam'])
    assert [r['what'] for r in rows] == [
        'clip_grad_norm_ foreach=False', 'clip_grad_norm_ foreach=True',
        'BertAdam loop', 'BertAdam foreach',
        'tests.helpers.reference_bert_adam:ReferenceBertAdam loop']
    assert all(r['tensors'] == 5 and r['params'] == 25 and r['step_ms'] > 0
               for r in rows)


def test_bad_names_are_errors():
    with pytest.raises(ValueError, match='module:Class'):
        optimizer_speed.load_class('tests.helpers.reference_bert_adam')
    with pytest.raises(ValueError, match="'loop' or 'foreach'"):
        optimizer_speed.measure_optimizer(Named(), 'captioning', 'x', steps=1,
                                          impls=['fused'])
    with pytest.raises(ValueError, match='dtype'):
        optimizer_speed.config_optim_wrapper(Named(), 'captioning', 'fp16')


def test_config_optim_wrapper_is_the_schedules():
    from mmidc.engine import AutocastOptimWrapper, BertAdam
    wrapper = optimizer_speed.config_optim_wrapper(Named(), 'adaptation', 'bf16')
    assert isinstance(wrapper, AutocastOptimWrapper)
    assert isinstance(wrapper.optimizer, BertAdam)
    assert wrapper.clip_grad_kwargs == dict(max_norm=1.0)
    assert torch.is_tensor(wrapper.optimizer.param_groups[0]['params'][0])
