"""The remote-sensing configs: each reads its set's layout; the LEVIR-CC
ViT-B/32 configs train two steps with a tiny arch; the tiny CPU configs
train, test and caption on a generated LEVIR-CC tree with the commands of
docs/datasets.md."""
import glob
import json
import os.path as osp
import re
import subprocess
import sys

import pytest
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers every component)
from mmidc.registry import DATASETS
from mmidc.runtime.data_root import apply_data_root
from tests.helpers import REPO, load_tool
from tests.helpers import rs_trees
from tests.helpers.tiny_run import tool_env, train_main

CONFIGS = REPO / 'configs' / 'clip4idc'
SPLITS = {'train': 8, 'val': 4, 'test': 4}
# config -> (tree writer, data set type)
RS_CAPTION_CONFIGS = {
    'clip4idc-caption_vit-b32_levir-cc.py':
    (rs_trees.make_levir_cc_tree, 'LEVIRCCDataset'),
    'clip4idc-caption_vit-b32_levir-mci.py':
    (rs_trees.make_levir_mci_tree, 'LEVIRMCIDataset'),
    'clip4idc-noadapt-caption_vit-b32_whu-cdc.py':
    (rs_trees.make_whu_cdc_tree, 'WHUCDCDataset'),
    'clip4idc-noadapt-caption_vit-b32_second-cc.py':
    (rs_trees.make_second_cc_tree, 'SECONDCCDataset'),
    'clip4idc-noadapt-caption_vit-b32_dubai-cc.py':
    (rs_trees.make_dubai_cc_tree, 'DubaiCCDataset'),
}

pytestmark = pytest.mark.usefixtures('one_thread')


@pytest.fixture(scope='module')
def levir_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('levir_cc'))
    rs_trees.make_levir_cc_tree(root, SPLITS)
    return root


@pytest.mark.parametrize('config', sorted(RS_CAPTION_CONFIGS))
def test_caption_configs_read_their_layout(config, tmp_path):
    """Each config's loaders, moved to a tree of its set's layout, read all
    three splits (the test split scored like the val split)."""
    make_tree, dataset_type = RS_CAPTION_CONFIGS[config]
    root = str(tmp_path / 'data')
    make_tree(root, SPLITS)
    cfg = Config.fromfile(str(CONFIGS / config))
    apply_data_root(cfg, str(CONFIGS / config))  # as tools/train.py
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        dataset = cfg[key].dataset
        assert dataset.type == dataset_type and dataset.data_root == \
            cfg.data_root, key
        resize = [t for t in dataset.pipeline if t['type'] == 'ResizePair']
        assert tuple(resize[0]['size']) == (224, 224)  # CLIP's input
        built = DATASETS.build(dict(dataset, data_root=root, pipeline=[]))
        split = key.split('_')[0]
        assert len(built) == SPLITS[split]
        flags = {built.get_data_info(i)['change_flag']
                 for i in range(len(built))}
        assert flags == {0, 1}  # change and no-change pairs both kept
    # scored with the remote-sensing protocol, val and test alike
    assert cfg.val_evaluator.tokenizer == 'rs_words'
    assert cfg.val_evaluator == cfg.test_evaluator


@pytest.mark.parametrize('config, make_tree', [
    ('clip4idc-adapt_vit-b32_levir-cc.py', rs_trees.make_levir_cc_tree),
    ('clip4idc-adapt_vit-b32_levir-mci.py', rs_trees.make_levir_mci_tree)])
def test_adaptation_leaves_out_no_change_pairs(tmp_path, config, make_tree):
    root = str(tmp_path / 'data')
    make_tree(root, SPLITS)
    cfg = Config.fromfile(str(CONFIGS / config))
    apply_data_root(cfg, str(CONFIGS / config))  # as tools/train.py
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        assert cfg[key].dataset.data_root == cfg.data_root
        dataset = DATASETS.build(dict(cfg[key].dataset, data_root=root,
                                      pipeline=[]))
        assert {dataset.get_data_info(i)['change_type']
                for i in range(len(dataset))} == {'change'}, key
    assert cfg.val_evaluator.type == 'RetrievalMetric'
    assert cfg.test_dataloader.dataset.split == 'test'


class Seen(Hook):
    """The change types of every training batch."""

    def __init__(self):
        self.types = []

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        self.types.append([ds.change_type
                           for ds in data_batch['data_samples']])


@pytest.mark.parametrize('config, batch_size, types', [
    # 4 change pairs x 5 captions: 2 batches of 10
    ('clip4idc-adapt_vit-b32_levir-cc.py', 10, {'change'}),
    # 8 pairs: 2 batches of 4, change and no-change pairs together
    ('clip4idc-caption_vit-b32_levir-cc.py', 4, {'change', 'none'}),
])
def test_levir_cc_paper_configs_train_two_steps(levir_root, tmp_path,
                                                tiny_arch, config,
                                                batch_size, types):
    from tests.test_configs.test_paper_recipes import tiny
    cfg = tiny(config, levir_root, str(tmp_path / 'work'), tiny_arch,
               batch_size=batch_size, epochs=1)
    cfg.custom_hooks = []
    runner = Runner.from_cfg(cfg)
    seen = Seen()
    runner.register_hook(seen)
    runner.train()
    assert runner.iter == 2
    assert {t for batch in seen.types for t in batch} == types


def run(tool: str, *args: str) -> str:
    """``python TOOL ARGS`` in the repo root; its output (fails loudly)."""
    result = subprocess.run([sys.executable, tool, *args], cwd=str(REPO),
                            env=tool_env(), capture_output=True, text=True,
                            timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    return output


def test_tiny_levir_cc_from_the_docs(tmp_path, monkeypatch):
    """docs/datasets.md's tiny CPU path, command by command, on a generated
    LEVIR-CC tree (fewer epochs, validation without Java). The tree, the
    vocabulary and the two training runs come from their commands' ``main``
    in this process (their command lines as subprocesses:
    tests/test_projects/test_running_projects.py, tests/test_tools/
    test_train_options.py); testing and captioning are subprocesses."""
    docs = (REPO / 'docs' / 'datasets.md').read_text()
    root = str(tmp_path / 'levir_cc_tiny')
    work = str(tmp_path / 'work')
    adapt_cfg = 'projects/from_scratch/configs/clip4idc-adapt_tiny_levir-cc.py'
    caption_cfg = ('projects/from_scratch/configs/'
                   'clip4idc-caption_tiny_levir-cc.py')
    for command in ('python tests/helpers/rs_trees.py data/levir_cc_tiny',
                    f'python tools/train.py {adapt_cfg}',
                    f'python tools/dataset_converters/build_vocab.py '
                    f'{caption_cfg}',
                    f'python tools/train.py {caption_cfg}',
                    f'python tools/test.py {caption_cfg}',
                    'python tools/caption_pair.py'):
        assert command in docs, command
    assert '--folder data/levir_cc_tiny/images/test' in docs
    fast = ['train_cfg.max_epochs=1', 'val_evaluator.java=False',
            'test_evaluator.java=False', 'train_dataloader.num_workers=0',
            'val_dataloader.num_workers=0', 'test_dataloader.num_workers=0',
            'train_dataloader.persistent_workers=False',
            'val_dataloader.persistent_workers=False',
            'test_dataloader.persistent_workers=False']
    monkeypatch.chdir(REPO)
    rs_trees.main([root, '--train', '8', '--val', '4', '--test', '4', '--size', '32'])
    adapt_dir = osp.join(work, 'adapt')
    train_main(adapt_cfg, '--work-dir', adapt_dir,
               '--cfg-options', f'data_root={root}', 'train_dataloader.batch_size=10',
               *[o for o in fast if 'evaluator' not in o])
    assert glob.glob(osp.join(adapt_dir, 'best_rsum_*.pth'))
    moved = [f'data_root={root}', f'adapt_work_dir={adapt_dir}']
    load_tool('tools/dataset_converters/build_vocab.py').main(
        [caption_cfg, '--cfg-options', *moved])
    assert osp.isfile(osp.join(root, 'caption_vocab_train.json'))
    caption_dir = osp.join(work, 'caption')
    train_main(caption_cfg, '--work-dir', caption_dir,
               '--cfg-options', *moved, 'train_dataloader.batch_size=4', *fast)
    (best, ) = glob.glob(osp.join(caption_dir, 'best_CIDEr_*.pth'))
    output = run('tools/test.py', caption_cfg, best, '--work-dir',
                 osp.join(work, 'test'), '--cfg-options', *moved, *fast)
    assert re.search(r'CIDEr: \d', output), output[-2000:]
    # the run's own config (its paths moved to the tree) captions a folder
    out = osp.join(work, 'captions.jsonl')
    run('tools/caption_pair.py', osp.join(caption_dir,
                                         osp.basename(caption_cfg)),
        best, '--folder', osp.join(root, 'images', 'test'), '--out', out,
        '--device', 'cpu', '--workers', '0')
    with open(out) as f:
        results = [json.loads(line) for line in f]
    assert [r['pair_id'] for r in results] == [
        f'test_{k:06d}' for k in range(4)]
    # a caption each (a one-epoch model's may be short or empty), no error
    assert all('error' not in r and isinstance(r['caption'], str)
               for r in results), results

