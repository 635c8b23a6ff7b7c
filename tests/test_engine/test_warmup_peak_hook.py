"""WarmupPeakHook: a warning when the run ends before the warm-up peaks."""
import pytest
import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner

import mmidc.engine.warmup_peak_hook as hook_module
from mmidc.engine.warmup_peak_hook import WarmupPeakHook

ITERS_PER_EPOCH = 5


class OneWeight(BaseModel):

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(2))

    def forward(self, inputs, data_samples=None, mode='loss'):
        return dict(loss=self.weight.sum())


@pytest.fixture
def messages(monkeypatch):
    seen = []
    monkeypatch.setattr(hook_module, 'print_log',
                        lambda msg, **kwargs: seen.append(msg))
    return seen


def train(tmp_path, param_scheduler, max_epochs=2):
    loader = torch.utils.data.DataLoader(
        list(range(ITERS_PER_EPOCH)),
        collate_fn=lambda batch: dict(inputs=torch.tensor(batch)))
    runner = Runner(
        model=OneWeight(), work_dir=str(tmp_path), train_dataloader=loader,
        train_cfg=dict(by_epoch=True, max_epochs=max_epochs),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.1)),
        param_scheduler=param_scheduler, default_scope='mmidc',
        default_hooks=dict(checkpoint=None, logger=None),
        custom_hooks=[dict(type='WarmupPeakHook')])
    runner.train()
    return runner


def test_fixed_warmup_longer_than_the_run_warns(tmp_path, messages):
    train(tmp_path, [dict(type='LinearLR', start_factor=0.02,
                          by_epoch=False, begin=0, end=50)])
    assert len(messages) == 1
    assert 'LinearLR' in messages[0]
    assert 'after 10 iterations (5 per epoch)' in messages[0]
    assert 'iteration 50' in messages[0]


@pytest.mark.parametrize('scheduler', [
    dict(type='LinearLR', start_factor=0.02, by_epoch=False, begin=0,
         end=10),  # peaks at the last iteration
    dict(type='LinearLR', start_factor=0.02, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='RunShareWarmupLR', share=0.05, convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, T_max=2),  # no warm-up
    dict(type='LinearLR', start_factor=1.0, end_factor=0.1, by_epoch=False,
         begin=0, end=50),  # a decay, not a warm-up
])
def test_warmup_within_the_run_is_quiet(tmp_path, messages, scheduler):
    train(tmp_path, [scheduler])
    assert messages == []


def test_epoch_warmup_counts_in_iterations(tmp_path, messages):
    # 3 epochs of warm-up peak at iteration 2 * 5 = 10: after a 2-epoch run
    train(tmp_path, [dict(type='LinearLR', start_factor=0.1, by_epoch=True,
                          begin=0, end=3)])
    assert len(messages) == 1 and 'iteration 11' in messages[0]


def test_noam_and_bert_warmups(tmp_path, messages):
    train(tmp_path / 'noam', [dict(type='NoamLR', warmup=11, by_epoch=False)])
    train(tmp_path / 'bert', [dict(type='BertWarmupLR', warmup=0.5,
                                   by_epoch=False, begin=0, end=40)])
    assert [m.split(':')[0] for m in messages] == ['NoamLR', 'BertWarmupLR']


def test_registered():
    from mmidc.registry import HOOKS
    assert HOOKS.get('WarmupPeakHook') is WarmupPeakHook


def test_epoch_warmup_of_a_loader_without_length_is_skipped():
    from mmengine.optim.scheduler import LinearLR

    from mmidc.engine.warmup_peak_hook import warmups_cut_short
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1)
    epochs = LinearLR(optimizer, start_factor=0.1, by_epoch=True, end=3)
    iters = LinearLR(optimizer, start_factor=0.1, by_epoch=False, end=50)
    short = warmups_cut_short([epochs, iters], max_iters=10, epoch_length=None)
    assert short == [(iters, 49)]
