"""The from-scratch recipe on your own pairs: both stages train on a
generated own-pairs folder on CPU, stage 2 from stage 1's best checkpoint."""
import glob
import os.path as osp

import pytest
from mmengine.config import Config
from mmengine.runner import Runner

import mmidc  # noqa: F401
from mmidc.runtime.config_check import apply_launch_args, check_config
from tests.helpers import REPO, load_tool
from tests.helpers.pair_trees import make_my_pairs_tree

CONFIGS = REPO / 'projects' / 'from_scratch' / 'configs'
# one intra-op thread: the tiny steps run fastest on one on a busy machine
pytestmark = pytest.mark.usefixtures('one_thread')


def tiny_run_cfg(name: str, data_root: str, work_dir: str,
                 **options) -> Config:
    """The config with its loaders on ``data_root``, one epoch of two
    steps; ``options`` are ``--cfg-options``."""
    path = str(CONFIGS / name)
    cfg = Config.fromfile(path)
    cfg.merge_from_dict({
        'train_dataloader.batch_size': 4,
        'train_dataloader.dataset.data_root': data_root,
        'val_dataloader.dataset.data_root': data_root,
        'test_dataloader.dataset.data_root': data_root,
        'train_cfg.max_epochs': 1,
        'randomness': dict(seed=0), **options})
    apply_launch_args(cfg, path, 'none', work_dir)
    check_config(cfg)
    return cfg


def test_both_stages_train_on_own_pairs(tmp_path):
    root = str(tmp_path / 'my_pairs')
    make_my_pairs_tree(root)  # 8 train pairs: 2 steps of 4
    adapt_dir = str(tmp_path / 'adapt')
    runner = Runner.from_cfg(tiny_run_cfg(
        'clip4idc-adapt_tiny_my-pairs.py', root, adapt_dir))
    runner.train()
    assert runner.iter == 2
    best = glob.glob(osp.join(adapt_dir, 'best_rsum_*.pth'))
    assert len(best) == 1

    caption_dir = str(tmp_path / 'caption')
    cfg = tiny_run_cfg(
        'clip4idc-caption_tiny_my-pairs.py', root, caption_dir, **{
            'model.init_backbone_from': best[0],
            'model.head.vocab': root + '/caption_vocab_train.json',
            # CIDEr needs Java: validation is the adaptation run's test here
            'val_dataloader': None, 'val_cfg': None, 'val_evaluator': None,
            'default_hooks.checkpoint.save_best': None})
    # the vocabulary of the training captions, as the config says
    load_tool('tools/dataset_converters/build_vocab.py').main([
        str(CONFIGS / 'clip4idc-caption_tiny_my-pairs.py'), '--cfg-options',
        f'train_dataloader.dataset.data_root={root}',
        f'model.head.vocab={cfg.model.head.vocab}'])
    runner = Runner.from_cfg(cfg)
    runner.train()
    assert runner.iter == 2
    assert osp.isfile(osp.join(caption_dir, 'epoch_1.pth'))
