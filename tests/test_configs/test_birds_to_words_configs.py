"""The shipped Birds-to-Words configs build on data laid out by
tools/dataset_converters/download_birds_to_words.py from a TSV of real-form
URLs (``/photos/<id>/medium.jpg?<n>``, served from 127.0.0.1; one photo
gone), with only the config's top-level ``data_root`` changed."""
import re
import shutil
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope

import mmidc  # noqa: F401  (registers every component)
from mmidc.registry import DATASETS
from mmidc.runtime.data_root import apply_data_root
from mmidc.text import build_caption_vocab, build_vocab_from_cfg
from tests.helpers import load_tool
from tests.helpers.image_server import image_server
from tests.helpers.pair_trees import make_birds_to_words_tree

CONFIG_ROOT = Path(__file__).parents[2] / 'configs'
# the NABirds cross-task config reads a second data set: its own test
# (test_cross_task_config.py)
CONFIGS = sorted(str(p.relative_to(CONFIG_ROOT))
                 for p in CONFIG_ROOT.rglob('*birds-to-words*.py')
                 if 'nabirds' not in p.name)
GONE = 1004  # the second photo of train pair 1
TRAIN_PAIRS = 8 - 1


@pytest.fixture(scope='module')
def downloaded(tmp_path_factory):
    """The download tool's data root, 12 pairs (train 8, val 2, test 2)."""
    tmp = tmp_path_factory.mktemp('birds_download')
    tsv_dir, out = str(tmp / 'tsv'), str(tmp / 'birds')
    with image_server() as server:
        for photo in range(1001, 1025):
            if photo != GONE:
                server.serve_photo(photo)
        make_birds_to_words_tree(tsv_dir, num_pairs=12, seed=2,
                                 url_style='inaturalist', base_url=server.url,
                                 write_images=False)
        tool = load_tool('tools/dataset_converters/download_birds_to_words.py')
        assert tool.main([tsv_dir, out, '--workers', '2', '--retries', '0',
                          '--timeout', '5']) == 1  # the photo gone
    return out


def with_data_root(config: str, data_root: str, tmp_path) -> Config:
    """The config with its top-level ``data_root`` line set to
    ``data_root`` (a copy of configs/ so that its bases resolve)."""
    root = tmp_path / 'configs'
    shutil.copytree(CONFIG_ROOT, root)
    path = root / config
    text = path.read_text()
    pattern = r"^data_root = 'data/birds_to_words'"
    assert len(re.findall(pattern, text, flags=re.M)) == 1, config
    path.write_text(re.sub(pattern, f'data_root = {data_root!r}', text,
                           flags=re.M))
    cfg = Config.fromfile(str(path))
    apply_data_root(cfg, str(path))  # the placeholders, as tools/train.py
    return cfg


def test_the_configs_are_found():
    assert CONFIGS == ['idc_pcl/idc-pcl-caption_resnet101_birds-to-words.py',
                       'idc_pcl/idc-pcl-pretrain_resnet101_birds-to-words.py']


@pytest.mark.parametrize('config', CONFIGS)
def test_builds_on_the_downloaded_data(config, downloaded, tmp_path):
    init_default_scope('mmidc')
    cfg = with_data_root(config, downloaded, tmp_path)
    loaders = [k for k in ('train_dataloader', 'val_dataloader',
                           'test_dataloader') if cfg.get(k)]
    assert loaders[0] == 'train_dataloader'
    assert cfg.model.cross_modal.vocab == downloaded + '/caption_vocab_train.json'
    if 'pretrain' in config:
        # FDA's negatives, written as the config's comment says
        negatives = load_tool('tools/dataset_converters/make_hard_negatives.py')
        negatives.main([cfg.filename, '--show', '0'])
        steps = cfg.train_dataloader.dataset.pipeline
        sampler = [t for t in steps if t['type'] == 'SampleHardNegatives'][0]
        assert sampler['negatives_file'].startswith(downloaded + '/')
    sizes = {}
    for key in loaders:
        dataset_cfg = cfg[key].dataset
        assert dataset_cfg.data_root == downloaded, key
        dataset = DATASETS.build(dataset_cfg)
        sizes[key] = len(dataset)
        sample = dataset[0]  # the whole pipeline: images, tokens, packing
        assert sample['inputs'][0].shape[-2:] == tuple(cfg.image_size)
    assert sizes['train_dataloader'] == TRAIN_PAIRS
    assert sizes.get('val_dataloader', 2) == 2
    assert sizes.get('test_dataloader', 2) == 2
    # the vocabulary file, written as the config's comment says, from the
    # training pairs whose photos are there
    load_tool('tools/dataset_converters/build_vocab.py').main([cfg.filename])
    train = DATASETS.build(dict(cfg.train_dataloader.dataset, pipeline=[]))
    assert torch.equal(build_vocab_from_cfg(cfg.model.cross_modal.vocab).clip_ids,
                       build_caption_vocab(train).clip_ids)
