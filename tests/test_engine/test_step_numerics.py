"""The speed changes of the training step leave its numbers unchanged.

The batched, asynchronous data preprocessor, ``idc_collate`` (pairs stacked
in the loader) and ``DeferredRuntimeInfoHook`` (losses read back only when
logged) must give the same losses at every iteration, and the same weights,
as a reference run of the same seed with MMEngine's stock pieces:
``pseudo_collate``, ``RuntimeInfoHook`` and a preprocessor that moves,
stacks and normalises sample by sample (the behaviour before the change,
written out here). Both runs go through MMEngine's runner, so they draw the
same random numbers (caption sampling, dropout).
"""
import copy
import os.path as osp

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseDataPreprocessor
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registries)
from mmidc.models.data_preprocessors.idc_data_preprocessor import CLIP_MEAN, CLIP_STD
from mmidc.registry import MODELS
from mmidc.runtime.config_check import check_config
from tests.helpers.tiny_run import captioner_config, write_tiny_config

# A tiny captioner with dropout and the reference-word loss (both draw on or
# move per-sample data), trained without validation.
# the from-scratch parts too: a neck, an auxiliary head reading every
# reference (ref_tokens from the pipeline), dropout in the caption head
CAPTIONER = captioner_config(dropout=0.1) + """
model['neck'] = dict(type='ChangeSummaryNeck', change_tokens=1)
model['aux_head'] = dict(type='BagOfWordsHead', loss_weight=1.0, word_prior=True)
train_pipeline.insert(-1, dict(type='TokenizeCaptions', context_length=16,
                               mode='all', key='ref_tokens'))
"""
LOG_EVERY = '''
default_hooks = dict(logger=dict(interval=3),
                     checkpoint=dict(save_best=None, interval=1))
'''


class StockPreprocessor(BaseDataPreprocessor):
    """The preprocessing before the change: every sample moved on its own,
    stacked on the device, normalised."""

    def __init__(self):
        super().__init__()
        self.register_buffer('mean', torch.tensor(CLIP_MEAN).view(1, 1, 3, 1, 1), False)
        self.register_buffer('std', torch.tensor(CLIP_STD).view(1, 1, 3, 1, 1), False)

    def forward(self, data, training=False):
        data = self.cast_data(data)  # one copy per sample and field
        inputs = torch.stack(list(data['inputs']))  # [B, 2, 3, H, W]
        return dict(inputs=(inputs.float() - self.mean) / self.std,
                    data_samples=data.get('data_samples'))


MODELS.register_module('StockPreprocessorOfTest', module=StockPreprocessor,
                       force=True)


def train(config: str, work_dir: str, stock: bool) -> Runner:
    """Train like tools/train.py, in this process, on MMEngine's default
    device (CUDA where there is one, unless ``mmengine_on_cpu``)."""
    cfg = Config.fromfile(config)
    cfg.work_dir = work_dir
    cfg.experiment_name = osp.basename(work_dir)
    if stock:
        cfg.default_hooks.runtime_info = dict(type='RuntimeInfoHook')
        cfg.train_dataloader.collate_fn = dict(type='pseudo_collate')
        cfg.model.data_preprocessor = dict(type='StockPreprocessorOfTest')
    else:
        cfg.train_dataloader.collate_fn = dict(type='idc_collate')
    check_config(cfg)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        runner = Runner.from_cfg(copy.deepcopy(cfg))
        runner.train()
    finally:
        torch.set_num_threads(threads)
    return runner


def histories(runner: Runner) -> dict:
    """Every logged training output, one value per iteration."""
    return {key: runner.message_hub.get_scalar(key).data[0].tolist()
            for key in runner.message_hub.log_scalars
            if key.startswith('train/') and key.split('/')[1] not in ('lr', 'time',
                                                                       'data_time')}


def assert_same_run(stock: Runner, new: Runner, iterations: int,
                    exact: bool = True) -> None:
    a, b = histories(stock), histories(new)
    assert 'train/loss' in a and a.keys() == b.keys()
    for key in a:
        assert len(a[key]) == iterations, key
        if exact:  # same operations in the same order: the same bits
            assert b[key] == a[key], key
        else:
            assert b[key] == pytest.approx(a[key], rel=1e-4, abs=1e-6), key
    state_a, state_b = stock.model.state_dict(), new.model.state_dict()
    for key in state_a:
        if exact:
            assert torch.equal(state_a[key], state_b[key]), key
        else:
            torch.testing.assert_close(state_b[key], state_a[key], rtol=1e-4,
                                       atol=1e-5, msg=key)


@pytest.mark.parametrize('stage', ['adaptation', 'captioning'])
def test_same_losses_as_the_stock_step(tmp_path, stage, mmengine_on_cpu):
    extra = LOG_EVERY + (CAPTIONER if stage == 'captioning' else '')
    config = write_tiny_config(str(tmp_path), max_epochs=2, extra=extra)
    stock = train(config, str(tmp_path / 'stock'), stock=True)
    new = train(config, str(tmp_path / 'new'), stock=False)
    # 16 training pairs, batch 4: 4 iterations per epoch
    assert_same_run(stock, new, iterations=8)
    assert new.message_hub.get_scalar('train/loss').data[0].size == 8


@pytest.mark.cuda
@pytest.mark.parametrize('stage', ['adaptation', 'captioning'])
def test_same_losses_as_the_stock_step_on_cuda(tmp_path, stage):
    """On CUDA the new step also runs its copies asynchronously. Some CUDA
    kernels (attention backward, atomics) are not bit-reproducible from run
    to run, so the comparison allows float32 rounding."""
    extra = LOG_EVERY + (CAPTIONER if stage == 'captioning' else '')
    config = write_tiny_config(str(tmp_path), max_epochs=2, extra=extra)
    stock = train(config, str(tmp_path / 'stock'), stock=True)
    new = train(config, str(tmp_path / 'new'), stock=False)
    assert next(new.model.parameters()).is_cuda
    assert_same_run(stock, new, iterations=8, exact=False)
