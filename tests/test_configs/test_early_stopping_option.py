"""Early stopping on val, the option configs/clip4idc/README.md documents:
MMEngine's EarlyStoppingHook added to a config's custom_hooks. Off in the
paper configs."""
import glob
import os.path as osp
import re

from mmengine.config import Config
from mmengine.runner import Runner

import mmidc  # noqa: F401
from mmidc.runtime.data_root import apply_data_root
from tests.helpers import REPO
from tests.helpers.tiny_run import write_tiny_config

README = REPO / 'configs' / 'clip4idc' / 'README.md'


def documented_hooks_line() -> str:
    """The README's ``custom_hooks = ...`` statement of the option."""
    text = README.read_text()
    section = text.split('### Early stopping on val', 1)[1]
    snippet = section.split('```python', 1)[1].split('```', 1)[0]
    match = re.search(r'^custom_hooks = .*?\]\n', snippet, re.S | re.M)
    return match.group(0)


def test_paper_configs_run_every_epoch():
    for path in glob.glob(str(REPO / 'configs' / '*' / '*vit-b*.py')):
        hooks = Config.fromfile(path).get('custom_hooks', [])
        assert all(h['type'] != 'EarlyStoppingHook' for h in hooks), path


def test_documented_snippet_keeps_the_base_hooks(tmp_path):
    child = tmp_path / 'caption_early_stop.py'
    base = REPO / 'configs' / 'clip4idc' / 'clip4idc-caption_vit-b32_clevr-change.py'
    child.write_text(f'_base_ = [{str(base)!r}]\n' + documented_hooks_line())
    hooks = Config.fromfile(str(child)).custom_hooks
    assert hooks[:-1] == Config.fromfile(str(base)).custom_hooks
    assert hooks[-1].type == 'EarlyStoppingHook'
    assert hooks[-1].monitor == 'CIDEr' and hooks[-1].patience == 11
    assert 0 < hooks[-1].min_delta < 1e-3  # a tie is no improvement


def test_tiny_run_stops_when_val_does_not_improve(tmp_path):
    """With a learning rate of 0 the val rsum never improves on the first
    epoch's: patience 2 stops a 6-epoch run after epoch 3."""
    hooks = documented_hooks_line().replace("'CIDEr'", "'rsum'").replace(
        'patience=11', 'patience=2')
    config = write_tiny_config(
        str(tmp_path), max_epochs=6,
        extra="optim_wrapper['optimizer']['lr'] = 0.0\n" + hooks)
    cfg = Config.fromfile(config)
    apply_data_root(cfg, config)  # as tools/train.py
    cfg.work_dir = str(tmp_path / 'work')
    runner = Runner.from_cfg(cfg)
    runner.train()
    assert runner.epoch == 3
    assert not osp.exists(osp.join(cfg.work_dir, 'epoch_4.pth'))
    assert osp.exists(osp.join(cfg.work_dir, 'epoch_3.pth'))
