"""The tiny configs' cosine decay follows ``train_cfg.max_epochs``, and the
learning rates of the shipped epochs are unchanged by that."""
import copy
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseModel
from mmengine.runner import Runner

import mmidc  # noqa: F401

REPO = Path(__file__).parents[2]
TINY = [
    'projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py',
    'projects/from_scratch/configs/clip4idc-adapt_tiny_synthetic-clevr-change.py',
    'configs/idc_pcl/idc-pcl-pretrain_tiny_synthetic-clevr-change.py',
]
ITERS_PER_EPOCH = 37  # not a multiple of the 50-step warm-up


class OneWeight(BaseModel):

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(2))

    def forward(self, inputs, data_samples=None, mode='loss'):
        return dict(loss=self.weight.sum())


def learning_rates(tmp_path, param_scheduler, train_cfg, optim_wrapper,
                   iters_per_epoch=ITERS_PER_EPOCH):
    """The rate of every training step of a run with these settings, from
    the schedulers as the Runner builds them."""
    loader = torch.utils.data.DataLoader(list(range(iters_per_epoch)))
    runner = Runner(model=OneWeight(), work_dir=str(tmp_path),
                    train_dataloader=loader, train_cfg=train_cfg,
                    optim_wrapper=optim_wrapper,
                    param_scheduler=param_scheduler,
                    default_scope='mmidc')
    runner._train_loop = runner.build_train_loop(runner._train_loop)
    runner.optim_wrapper = runner.build_optim_wrapper(runner.optim_wrapper)
    schedulers = runner.build_param_scheduler(runner.param_schedulers)
    rates = []
    for _ in range(runner.max_epochs * iters_per_epoch):
        rates.append(runner.optim_wrapper.get_lr()['lr'][0])
        for scheduler in schedulers:
            scheduler.step()
    return rates


def settings(cfg: Config, max_epochs: int = None):
    train_cfg = copy.deepcopy(cfg.train_cfg.to_dict())
    if max_epochs is not None:
        train_cfg['max_epochs'] = max_epochs
    train_cfg['val_interval'] = 10**6  # no validation loop here
    return (copy.deepcopy(cfg.param_scheduler), train_cfg,
            cfg.optim_wrapper.to_dict())


@pytest.mark.parametrize('config', TINY)
def test_default_epochs_keep_the_explicit_end_rates(tmp_path, config):
    """Bit for bit the rates of the former ``end=max_epochs`` scheduler."""
    cfg = Config.fromfile(REPO / config)
    schedulers, train_cfg, optim = settings(cfg)
    explicit = copy.deepcopy(schedulers)
    assert 'end' not in explicit[-1]
    explicit[-1]['end'] = train_cfg['max_epochs']
    assert (learning_rates(tmp_path / 'a', schedulers, train_cfg, optim) ==
            learning_rates(tmp_path / 'b', explicit, train_cfg, optim))


def test_more_epochs_stretch_the_decay(tmp_path):
    cfg = Config.fromfile(REPO / TINY[0])
    lr = cfg.optim_wrapper.optimizer.lr
    eta_min = lr * cfg.param_scheduler[-1].eta_min_ratio
    default = cfg.train_cfg.max_epochs
    rates = learning_rates(tmp_path, *settings(cfg, 2 * default))
    assert len(rates) == 2 * default * ITERS_PER_EPOCH
    # Half-way through the longer run the cosine is at its middle, not at
    # its floor (where a decay ending at the default epochs would be).
    middle = rates[default * ITERS_PER_EPOCH]
    assert middle == pytest.approx((lr + eta_min) / 2, rel=0.02)
    assert rates[-1] == pytest.approx(eta_min, rel=0.01)
    warmup = cfg.param_scheduler[0].max_steps
    assert min(rates[warmup:-ITERS_PER_EPOCH]) > 1.05 * eta_min


MY_PAIRS = 'projects/from_scratch/configs/clip4idc-{}_tiny_my-pairs.py'


@pytest.mark.parametrize('stage', ['adapt', 'caption'])
@pytest.mark.parametrize('pairs', [28, 100, 400])
def test_small_own_sets_reach_the_configured_rate(tmp_path, stage, pairs):
    """A run of a few iterations is not spent inside a fixed warm-up: the
    configured rate is reached (28 pairs: 2 adaptation and 10 captioning
    iterations, formerly at 4.5 % and 9 % of the configured rates)."""
    cfg = Config.fromfile(REPO / MY_PAIRS.format(stage))
    lr = cfg.optim_wrapper.optimizer.lr
    batch = cfg.train_dataloader.batch_size
    iters = -(-pairs // batch)  # no drop_last
    rates = learning_rates(tmp_path, *settings(cfg), iters_per_epoch=iters)
    assert len(rates) == cfg.train_cfg.max_epochs * iters
    assert max(rates) >= 0.97 * lr
    assert max(rates) <= lr * (1 + 1e-9)
    # the first step of a run long enough to warm up is below the peak
    if len(rates) >= 40:
        assert rates[0] < 0.5 * lr


def test_quickstart_caption_stage_keeps_its_rates(tmp_path):
    """The quickstart's captioning run (2,400 scenes, 4,800 pairs, batch 16:
    300 iterations per epoch) warms up over the same 50 iterations, bit for
    bit."""
    cfg = Config.fromfile(REPO / TINY[0])
    schedulers, train_cfg, optim = settings(cfg)
    fixed = copy.deepcopy(schedulers)
    fixed[0] = dict(type='LinearLR', start_factor=0.02, by_epoch=False,
                    begin=0, end=50)
    assert (learning_rates(tmp_path / 'a', schedulers, train_cfg, optim, 300)
            == learning_rates(tmp_path / 'b', fixed, train_cfg, optim, 300))
