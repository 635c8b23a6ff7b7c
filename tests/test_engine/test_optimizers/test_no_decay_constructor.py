"""NoDecayOptimWrapperConstructor: decay off by name and by norm layer,
combined with custom_keys' learning rates."""
import pytest
import torch
from mmengine.optim import build_optim_wrapper
from mmengine.registry import init_default_scope
from torch import nn

import mmidc  # noqa: F401  (registers the constructor and BertAdam)


class Toy(nn.Module):

    def __init__(self):
        super().__init__()
        self.backbone = nn.Module()
        self.backbone.attn = nn.MultiheadAttention(8, 2)  # in_proj_bias
        self.backbone.ln_1 = nn.LayerNorm(8)  # CLIP's name: no "LayerNorm"
        self.backbone.new_embedding = nn.Parameter(torch.zeros(8))
        self.backbone.frozen = nn.Parameter(torch.zeros(8),
                                            requires_grad=False)
        self.head = nn.Module()
        self.head.fc = nn.Linear(8, 8)
        self.head.norm = nn.LayerNorm(8)


def groups_by_name(model, paramwise_cfg):
    init_default_scope('mmidc')
    wrapper = build_optim_wrapper(model, dict(
        constructor='NoDecayOptimWrapperConstructor',
        optimizer=dict(type='BertAdam', lr=1e-4, weight_decay=0.2),
        paramwise_cfg=paramwise_cfg))
    name_of = {id(p): n for n, p in model.named_parameters()}
    return {name_of[id(g['params'][0])]: g
            for g in wrapper.optimizer.param_groups}


def test_names_norms_and_custom_keys_combine():
    groups = groups_by_name(Toy(), dict(
        custom_keys={'backbone': dict(lr_mult=1e-3),
                     'new_embedding': dict(lr_mult=1.0)},
        no_decay_keys=['bias'], no_decay_norms_in=['head']))
    decay = {n: g['weight_decay'] for n, g in groups.items()}
    assert decay == {
        'backbone.attn.in_proj_weight': 0.2,
        'backbone.attn.in_proj_bias': 0.0,  # "bias" in the name
        'backbone.attn.out_proj.weight': 0.2,
        'backbone.attn.out_proj.bias': 0.0,
        'backbone.ln_1.weight': 0.2,  # a norm, but not under "head"
        'backbone.ln_1.bias': 0.0,
        'backbone.new_embedding': 0.2,
        'head.fc.weight': 0.2,
        'head.fc.bias': 0.0,
        'head.norm.weight': 0.0,
        'head.norm.bias': 0.0,
    }  # backbone.frozen: in no group
    lr = {n: g['lr'] for n, g in groups.items()}
    assert lr['backbone.attn.in_proj_bias'] == pytest.approx(1e-7)
    assert lr['backbone.ln_1.weight'] == pytest.approx(1e-7)
    assert lr['backbone.new_embedding'] == pytest.approx(1e-4)
    assert lr['head.norm.weight'] == pytest.approx(1e-4)


def test_without_options_it_is_the_default_constructor():
    groups = groups_by_name(Toy(), dict())
    assert all(g['weight_decay'] == 0.2 for g in groups.values())
    assert len(groups) == 11


@pytest.mark.parametrize('option, value, match', [
    ('no_decay_keys', ['bais'], "'bais' is in no trainable"),
    ('no_decay_norms_in', ['decoder'], "under 'decoder'"),
    ('no_decay_keys', 'bias', 'list of non-empty strings'),
])
def test_typos_are_errors(option, value, match):
    with pytest.raises((ValueError, TypeError), match=match):
        groups_by_name(Toy(), {option: value})
