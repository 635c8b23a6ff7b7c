"""The shipped NABirds cross-task pre-training config, at a test size: with
its data roots pointed at a tiny Birds-to-Words tree and a tiny NABirds tree
(the distributed layouts), a few iterations train batches of both kinds,
and each kind changes the tensors of its own task."""
import copy
import re
import shutil
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.registry import init_default_scope
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers every component)
from mmidc.runtime.data_root import apply_data_root
from tests.helpers import load_tool
from tests.helpers.nabirds_tree import make_nabirds_tree
from tests.helpers.pair_trees import make_birds_to_words_tree
from tests.helpers.tiny_idc_pcl import TINY_RESNET

CONFIG_ROOT = Path(__file__).parents[2] / 'configs'
CONFIG = 'idc_pcl/idc-pcl-pretrain-nabirds_resnet101_birds-to-words.py'
SIZE = (32, 48)
GROUPS = ('cls_head', 'match_head', 'token_embedding', 'single_image_encoder',
          'pair_encoder', 'cross_modal')

pytestmark = pytest.mark.usefixtures('one_thread')


class ChangedTensors(Hook):
    """Records, per iteration, the kind of batch and which module groups
    the step changed."""

    def __init__(self):
        self.steps = []

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        self._before = {n: p.detach().clone()
                        for n, p in runner.model.named_parameters()}
        self._kind = ('nabirds' if 'class_labels' in data_batch['data_samples'][0]
                      else 'pairs')

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        changed = {g for n, p in runner.model.named_parameters()
                   for g in GROUPS if n.startswith(g)
                   and not torch.equal(p.detach(), self._before[n])}
        self.steps.append((self._kind, changed, set(outputs)))


def shipped_config(birds: str, nabirds: str, work_dir: str) -> str:
    """A copy of the config with its two data roots set."""
    root = Path(work_dir) / 'configs'
    shutil.copytree(CONFIG_ROOT, root)
    path = root / CONFIG
    text = path.read_text()
    for key, value in (('data_root', birds), ('nabirds_root', nabirds)):
        pattern = rf"^{key} = '[^']*'"
        assert len(re.findall(pattern, text, flags=re.M)) == 1, key
        text = re.sub(pattern, f'{key} = {value!r}', text, flags=re.M)
    path.write_text(text)
    return str(path)


def tiny_config(path: str, work_dir: str) -> Config:
    cfg = Config.fromfile(path)
    apply_data_root(cfg, path)  # as tools/train.py
    # test size: the tiny ResNet, small images, batches of 4, both kinds
    cfg.train_dataloader.update(batch_size=4, num_workers=0,
                                persistent_workers=False)
    cfg.train_dataloader.sampler.update(seed=0)  # SampleSeedSampler's, passed on
    cfg.train_dataloader.sampler.sampler.update(batch_size=4, ratios=[1, 1])
    for dataset in cfg.train_dataloader.dataset.datasets:
        for t in dataset.pipeline:
            if t['type'] == 'ResizePair':
                t['size'] = SIZE
    model = cfg.model
    model.hidden = 32
    model.num_classes = 3
    model.task_weights = dict(mlm=1)
    model.feature_encoder.backbone = copy.deepcopy(TINY_RESNET)  # no download
    model.feature_encoder.image_size = SIZE
    cfg.model_wrapper_cfg = None
    cfg.train_cfg.max_iters = 6
    cfg.param_scheduler = None
    cfg.optim_wrapper.optimizer.lr = 1e-2
    cfg.default_hooks.checkpoint.interval = 6
    cfg.default_hooks.logger.interval = 1
    cfg.work_dir = work_dir
    cfg.randomness = dict(seed=0)
    return cfg


def test_cross_task_stage_trains_both_kinds_of_batch(tmp_path):
    init_default_scope('mmidc')
    birds, nabirds = str(tmp_path / 'birds'), str(tmp_path / 'nabirds')
    make_birds_to_words_tree(birds, num_pairs=12, seed=2)
    make_nabirds_tree(nabirds)
    path = shipped_config(birds, nabirds, str(tmp_path / 'work'))
    # FDA's negatives, written from the config (its caption pairs); not
    # drawn in this run (MLM only) but read by the pipeline
    negatives = load_tool('tools/dataset_converters/make_hard_negatives.py')
    negatives.main([path, '--show', '0'])
    assert (Path(birds) / 'hard_negatives_train.json').is_file()
    # the caption vocabulary: the caption pairs' (NABirds has no captions)
    load_tool('tools/dataset_converters/build_vocab.py').main([path])
    assert (Path(birds) / 'caption_vocab_train.json').is_file()
    cfg = tiny_config(path, str(tmp_path / 'work'))
    runner = Runner.from_cfg(cfg)
    record = ChangedTensors()
    runner.register_hook(record)
    runner.train()
    kinds = [kind for kind, _, _ in record.steps]
    assert len(kinds) == 6 and {'nabirds', 'pairs'} == set(kinds)
    for kind, changed, outputs in record.steps:
        if kind == 'nabirds':
            # classification, matching and contrast on F_sing / F_pair only
            assert {'loss_cls', 'loss_match', 'loss_contrast'} <= outputs
            assert changed == {'cls_head', 'match_head', 'token_embedding',
                               'single_image_encoder', 'pair_encoder'}, changed
        else:
            assert 'loss_mlm' in outputs
            assert {'cross_modal', 'token_embedding', 'single_image_encoder',
                    'pair_encoder'} <= changed
            assert not changed & {'cls_head', 'match_head'}, changed
    assert (Path(cfg.work_dir) / 'iter_6.pth').is_file()
