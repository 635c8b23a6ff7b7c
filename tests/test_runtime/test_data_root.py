"""A config's data_root means what it says: a child that sets only
``data_root`` (or ``vocab_file``, ``adapt_work_dir``, a ``*_root``) moves
every path written from it as a placeholder (``'{data_root}/...'``), and a
data set or evaluator left on another folder stops the run naming the
settings (mmidc.runtime.data_root)."""
import logging
import os.path as osp
import re
import subprocess
import sys

import pytest
from mmengine.config import Config

from mmidc.runtime.data_root import apply_data_root, own_settings
from tests.helpers import CONFIG_FILES, REPO
from tests.helpers.pair_trees import make_my_pairs_tree
from tests.helpers.tiny_run import tool_env

BASES = REPO / 'configs' / '_base_' / 'datasets'
MY_PAIRS_CAPTION = REPO / 'configs' / 'clip4idc' / 'clip4idc-caption_vit-b32_my-pairs.py'
TINY_ADAPT = (REPO / 'projects' / 'from_scratch' / 'configs' /
              'clip4idc-adapt_tiny_my-pairs.py')
SHIFTED = BASES / 'synthetic_clevr_change_shifted_96x144.py'
LOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')


def write_config(path, text: str) -> str:
    path.write_text(text)
    return str(path)


def loader_roots(cfg):
    return [cfg[key].dataset.data_root for key in LOADERS]


def test_child_that_sets_only_data_root_moves_every_derived_path(tmp_path):
    child = write_config(tmp_path / 'child.py', (
        f'_base_ = [{str(MY_PAIRS_CAPTION)!r}]\n'
        "data_root = 'data/levir_cc'\n"
        "adapt_work_dir = 'work_dirs/my_adapt'\n"))
    cfg = Config.fromfile(child)
    # what MMEngine alone gives: the placeholder the base wrote
    assert loader_roots(cfg) == ['{data_root}'] * 3
    changes = apply_data_root(cfg, child)
    assert loader_roots(cfg) == ['data/levir_cc'] * 3
    assert cfg.vocab_file == 'data/levir_cc/caption_vocab_train.json'
    assert cfg.model.init_backbone_from == 'work_dirs/my_adapt/best_rsum_*.pth'
    assert cfg.model.head.pretrained == 'work_dirs/my_adapt/best_rsum_*.pth'
    moved = {where for where, _, _ in changes}
    assert 'train_dataloader.dataset.data_root' in moved
    assert 'model.init_backbone_from' in moved
    # the cache is the loader's own folder's
    assert cfg.train_dataloader.dataset.pipeline[0].cache_dir == \
        'data/levir_cc/cache_224x224'
    # applied twice: nothing more to move
    assert apply_data_root(cfg, child) == []


def test_the_documented_base_and_a_child_that_sets_only_data_root(tmp_path):
    """docs/new_dataset.md's own base (over image_pair.py): its loaders
    read its reader and splits alone, and a child that sets only data_root
    moves every loader."""
    text = (REPO / 'docs' / 'new_dataset.md').read_text()
    found = [b for b in re.findall(r'```python\n(.*?)```', text, flags=re.S)
             if "_base_ = ['./image_pair.py']" in b]
    assert len(found) == 1, found
    base = write_config(tmp_path / 'my_layout.py', found[0].replace(
        "'./image_pair.py'", repr(str(BASES / 'image_pair.py'))))
    cfg = Config.fromfile(base)
    apply_data_root(cfg, base)
    assert [dict(cfg[key].dataset, pipeline=None) for key in LOADERS] == [
        dict(type='MyLayoutDataset', data_root='data/my_layout', split=split,
             pipeline=None) for split in ('train', 'valid', 'test')]
    assert cfg.train_dataloader.batch_size == 16
    child = write_config(tmp_path / 'child.py', (
        f'_base_ = [{base!r}]\n'
        "data_root = 'data/elsewhere'\n"
        'train_dataloader = dict(batch_size=32)\n'))
    cfg = Config.fromfile(child)
    apply_data_root(cfg, child)
    assert loader_roots(cfg) == ['data/elsewhere'] * 3
    assert cfg.vocab_file == 'data/elsewhere/caption_vocab_train.json'
    assert cfg.train_dataloader.batch_size == 32
    assert cfg.train_dataloader.dataset.type == 'MyLayoutDataset'


def test_caption_truth_root_and_features_follow(tmp_path):
    child = write_config(tmp_path / 'child.py', (
        f"_base_ = [{str(BASES / 'synthetic_clevr_change.py')!r}]\n"
        "data_root = 'data/my_synthetic'\n"))
    cfg = Config.fromfile(child)
    assert cfg.val_evaluator[1].data_root == '{data_root}'
    apply_data_root(cfg, child)
    assert cfg.val_evaluator[1].data_root == 'data/my_synthetic'
    assert cfg.test_evaluator[1].data_root == 'data/my_synthetic'
    assert loader_roots(cfg) == ['data/my_synthetic'] * 3
    child = write_config(tmp_path / 'features.py', (
        "_base_ = ["
        f"{str(BASES / 'clevr_change_resnet101_features.py')!r}]\n"
        "data_root = 'data/clevr2'\n"))
    cfg = Config.fromfile(child)
    apply_data_root(cfg, child)
    assert cfg.train_dataloader.dataset.pipeline[0].cache_dir == \
        'data/clevr2/features_resnet101_224'


def test_vocab_file_and_data_root_together(tmp_path):
    child = write_config(tmp_path / 'child.py', (
        f"_base_ = [{str(BASES / 'image_pair.py')!r}]\n"
        "data_root = 'data/new'\n"
        "vocab_file = 'data/shared/vocab.json'\n"
        "model = dict(head=dict(vocab='{vocab_file}'))\n"))
    cfg = Config.fromfile(child)
    apply_data_root(cfg)
    # the vocabulary follows vocab_file, the loaders data_root
    assert cfg.model.head.vocab == 'data/shared/vocab.json'
    assert loader_roots(cfg) == ['data/new'] * 3


def test_cfg_options_data_root(tmp_path):
    cfg = Config.fromfile(str(MY_PAIRS_CAPTION))
    cfg.merge_from_dict({'data_root': 'data/from_the_command_line'})
    apply_data_root(cfg, str(MY_PAIRS_CAPTION))
    assert loader_roots(cfg) == ['data/from_the_command_line'] * 3
    assert cfg.vocab_file.startswith('data/from_the_command_line/')


def test_loaders_moved_by_cfg_options_take_data_root_along(tmp_path):
    cfg = Config.fromfile(str(BASES / 'synthetic_clevr_change.py'))
    options = {f'{key}.dataset.data_root': '/tmp/x' for key in LOADERS}
    cfg.merge_from_dict(options)
    apply_data_root(cfg, cfg_options=options)
    assert cfg.data_root == '/tmp/x'
    assert cfg.vocab_file == '/tmp/x/caption_vocab_train.json'
    # the caption-truth metric grades against the scenes actually read
    assert cfg.val_evaluator[1].data_root == '/tmp/x'


def test_a_declared_second_root_stays(tmp_path):
    child = write_config(tmp_path / 'child.py', (
        f'_base_ = [{str(SHIFTED)!r}]\n'
        "data_root = 'data/other_synthetic'\n"))
    cfg = Config.fromfile(child)
    apply_data_root(cfg, child)
    assert loader_roots(cfg) == ['data/other_synthetic'] * 2 + [
        'data/synthetic_clevr_change_shifted']
    assert cfg.test_evaluator[1].data_root == \
        'data/synthetic_clevr_change_shifted'
    # and moves when the child sets it
    cfg = Config.fromfile(child, )
    cfg.merge_from_dict({'shifted_root': 'data/s2'})
    apply_data_root(cfg, child)
    assert cfg.test_dataloader.dataset.data_root == 'data/s2'
    assert cfg.test_dataloader.dataset.pipeline[0].cache_dir == \
        'data/s2/cache_96x144'
    assert cfg.test_evaluator[1].data_root == 'data/s2'


def test_a_loader_on_another_folder_stops_naming_it(tmp_path):
    # a base's folder that is no earlier value of data_root, inherited by a
    # config that does not set it: whether it should follow is not known
    write_config(tmp_path / 'base.py', (
        "data_root = 'data/new'\n"
        "train_dataloader = dict(dataset=dict(type='ImagePairDataset',"
        " data_root='data/old', ann_file='train.jsonl'))\n"
        "val_dataloader = dict(dataset=dict(type='ImagePairDataset',"
        " data_root='data/new', ann_file='val.jsonl'))\n"
        "val_evaluator = [dict(type='IDCMetric'), "
        "dict(type='CaptionTruthMetric', data_root='data/old')]\n"))
    config = write_config(tmp_path / 'own.py', (
        "_base_ = ['./base.py']\n"
        'train_cfg = dict(max_epochs=1)\n'))
    cfg = Config.fromfile(config)
    with pytest.raises(ValueError) as error:
        apply_data_root(cfg, config)
    message = str(error.value)
    assert config in message
    assert "data_root is 'data/new'" in message
    assert "train_dataloader.dataset.data_root = 'data/old'" in message
    assert "val_evaluator[1].data_root = 'data/old'" in message
    assert 'val_dataloader' not in message
    assert 'Fix:' in message and '_root' in message


def test_loaders_that_disagree_among_themselves_stop(tmp_path):
    cfg = Config.fromfile(str(BASES / 'image_pair.py'))
    cfg.merge_from_dict({'train_dataloader.dataset.data_root': 'data/a'})
    with pytest.raises(ValueError, match='train_dataloader.dataset.data_root'):
        apply_data_root(cfg)


@pytest.fixture
def two_folders(tmp_path, monkeypatch):
    """``data/my_pairs`` (the shipped configs' folder) and ``data/mp2`` on
    disk, the current directory their parent (relative roots resolve as in
    a run from a clone's root)."""
    for name in ('my_pairs', 'mp2', 'elsewhere'):
        (tmp_path / 'data' / name).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_loader_set_by_cfg_options_is_kept(two_folders):
    options = {'data_root': 'data/mp2',
               'val_dataloader.dataset.data_root': 'data/my_pairs'}
    cfg = Config.fromfile(str(MY_PAIRS_CAPTION))
    cfg.merge_from_dict(options)
    apply_data_root(cfg, str(MY_PAIRS_CAPTION), options)
    # validated where the command line says; the rest follows data_root
    assert loader_roots(cfg) == ['data/mp2', 'data/my_pairs', 'data/mp2']
    assert cfg.vocab_file == 'data/mp2/caption_vocab_train.json'


def test_a_childs_concat_dataset_reads_both_folders(two_folders,
                                                   monkeypatch):
    logged = []
    monkeypatch.setattr('mmidc.runtime.data_root.print_log',
                        lambda message, **kwargs: logged.append(message))
    child = write_config(two_folders / 'child.py', (
        f"_base_ = [{str(BASES / 'image_pair.py')!r}]\n"
        "data_root = 'data/mp2'\n"
        'train_dataloader = dict(dataset=dict(\n'
        "    _delete_=True, type='ConcatDataset', datasets=[\n"
        "        dict(type='ImagePairDataset', data_root=data_root,"
        " ann_file='train.jsonl'),\n"
        "        dict(type='ImagePairDataset', data_root='data/my_pairs',"
        " ann_file='train.jsonl')]))\n"))
    cfg = Config.fromfile(child)
    apply_data_root(cfg, child)
    datasets = cfg.train_dataloader.dataset.datasets
    assert [d.data_root for d in datasets] == ['data/mp2', 'data/my_pairs']
    assert [cfg[key].dataset.data_root for key in LOADERS[1:]] == \
        ['data/mp2'] * 2
    assert ("train_dataloader.dataset.datasets[1].data_root = "
            "'data/my_pairs'") in logged[-1]


def test_one_folder_spelled_two_ways_is_one_folder(two_folders):
    (two_folders / 'link').symlink_to(two_folders / 'data' / 'mp2')
    write_config(two_folders / 'base.py', (
        "data_root = 'data/mp2'\n"
        "train_dataloader = dict(dataset=dict(type='ImagePairDataset',"
        f" data_root={str(two_folders / 'data' / 'mp2')!r},"
        " ann_file='train.jsonl'))\n"
        "val_dataloader = dict(dataset=dict(type='ImagePairDataset',"
        f" data_root={str(two_folders / 'link')!r}, ann_file='val.jsonl'))\n"
        "val_evaluator = [dict(type='CaptionTruthMetric',"
        " data_root='./data/mp2/')]\n"))
    child = write_config(two_folders / 'child.py', (
        "_base_ = ['./base.py']\n"
        'train_cfg = dict(max_epochs=1)\n'))
    cfg = Config.fromfile(child)
    assert apply_data_root(cfg, child) == []  # no error, nothing moved


def test_an_absolute_ann_file_of_a_base_is_checked(two_folders):
    absolute = str(two_folders / 'data')
    write_config(two_folders / 'base.py', (
        f"_base_ = [{str(BASES / 'image_pair.py')!r}]\n"
        'train_dataloader = dict(dataset=dict('
        f"ann_file={absolute + '/my_pairs/train.jsonl'!r}))\n"
        'val_dataloader = dict(dataset=dict('
        f"ann_file={absolute + '/elsewhere/val.jsonl'!r}))\n"))
    child = write_config(two_folders / 'child.py', (
        "_base_ = ['./base.py']\n"
        "data_root = 'data/mp2'\n"))
    cfg = Config.fromfile(child)
    with pytest.raises(ValueError) as error:
        apply_data_root(cfg, child)
    message = str(error.value)
    assert (f"val_dataloader.dataset.ann_file = "
            f"{absolute + '/elsewhere/val.jsonl'!r}") in message
    assert 'relative to' in message
    # a base's literal on the old folder is never rewritten: it stops too
    assert (f"train_dataloader.dataset.ann_file = "
            f"{absolute + '/my_pairs/train.jsonl'!r}") in message
    # the same file set in the config itself is meant
    child = write_config(two_folders / 'child.py', (
        "_base_ = ['./base.py']\n"
        'val_dataloader = dict(dataset=dict('
        f"ann_file={absolute + '/elsewhere/val.jsonl'!r}))\n"))
    cfg = Config.fromfile(child)
    apply_data_root(cfg, child)
    assert cfg.val_dataloader.dataset.ann_file == \
        absolute + '/elsewhere/val.jsonl'


def test_own_settings_tells_a_literal_from_a_derived_value(tmp_path):
    path = write_config(tmp_path / 'child.py', (
        "_base_ = ['./base.py']\n"
        "data_root = 'data/mp2'\n"
        "second = 'data/my_pairs'\n"
        'ann = data_root + "/x.json"\n'
        'vocab_file = {{_base_.vocab_file}}\n'
        'train_dataloader = dict(batch_size=4, dataset=dict(datasets=[\n'
        '    dict(data_root=data_root, ann_file=ann),\n'
        "    dict(data_root=second, pipeline=_base_.test_pipeline)]))\n"
        "test_dataloader, val_dataloader = f(data_root), dict(a='b')\n"
        "vocab = '{vocab_file}'\n"))
    own = own_settings(path)
    dataset = ('train_dataloader', 'dataset', 'datasets')
    assert own[('data_root', )] is True
    assert own[('vocab_file', )] is False
    assert own[('train_dataloader', 'batch_size')] is True
    assert own[dataset + ('0', 'data_root')] is False
    assert own[dataset + ('0', 'ann_file')] is False
    assert own[dataset + ('1', 'data_root')] is True
    assert own[dataset + ('1', 'pipeline')] is False
    assert own[('test_dataloader', )] is False
    assert own[('val_dataloader', 'a')] is True
    assert own[('vocab', )] is False  # a placeholder is derived
    assert ('train_dataloader', 'dataset', 'type') not in own


def test_placeholders_are_filled_from_the_final_values():
    cfg = Config(dict(
        data_root='data/x', shifted_root='data/s',
        vocab_file='{data_root}/vocab.json',
        model=dict(head=dict(vocab='{vocab_file}')),
        test_dataloader=dict(dataset=dict(
            data_root='{shifted_root}',
            pipeline=[dict(type='LoadImagePair',
                           cache_dir='{data_root}/cache_96x144')]))))
    apply_data_root(cfg)
    assert cfg.model.head.vocab == 'data/x/vocab.json'
    # inside a data set, {data_root} is its own folder
    assert cfg.test_dataloader.dataset.pipeline[0].cache_dir == \
        'data/s/cache_96x144'
    cfg = Config(dict(data_root='data/x',
                      model=dict(head=dict(vocab='{vocab_fil}/v.json'))))
    with pytest.raises(ValueError,
                       match=r'model\.head\.vocab: the placeholder '
                       r'\{vocab_fil\} has no top-level setting'):
        apply_data_root(cfg)


def test_without_a_top_level_data_root_each_data_set_keeps_its_own():
    """Loaders that name their own folders, no top-level data_root: a
    pipeline variable's {data_root} is left for each data set to fill; a
    data set's own data_root='{data_root}' is still an error."""
    from mmidc.utils.config_placeholders import fill_placeholders
    load = dict(type='LoadImagePair', cache_dir='{data_root}/cache_8x8')
    cfg = Config(dict(pipeline=[load], train_dataloader=dict(dataset=dict(
        data_root='data/a', pipeline=[load]))))
    fill_placeholders(cfg)
    assert cfg.pipeline[0].cache_dir == '{data_root}/cache_8x8'
    assert cfg.train_dataloader.dataset.pipeline[0].cache_dir == \
        'data/a/cache_8x8'
    cfg = Config(dict(train_dataloader=dict(dataset=dict(
        data_root='{data_root}'))))
    with pytest.raises(ValueError, match=r'train_dataloader\.dataset\.'
                       r'data_root: the placeholder \{data_root\}'):
        fill_placeholders(cfg)


def test_a_data_set_refuses_an_unfilled_placeholder():
    """Runner.from_cfg on a shipped config without apply_data_root."""
    from mmidc.datasets import ImagePairDataset
    with pytest.raises(ValueError, match='apply_data_root'):
        ImagePairDataset(ann_file='train.jsonl', data_root='{data_root}',
                         lazy_init=True)


def test_every_shipped_config_is_consistent():
    for path in CONFIG_FILES:
        cfg = Config.fromfile(str(path))
        apply_data_root(cfg, str(path))  # no error
        assert apply_data_root(cfg, str(path)) == [], path


def _run_tool(tool: str, cwd, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(REPO / 'tools' / tool), *args], cwd=str(cwd),
        env=tool_env(), capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    return output


def test_grandchild_trains_and_tests_on_its_data_root(tmp_path):
    """Two folders on disk: the shipped config's default ``data/my_pairs``
    (8/4/4 pairs) and ``data/levir_cc`` (12/4/6); the grandchild of the
    shipped tiny config sets only ``data_root``."""
    make_my_pairs_tree(str(tmp_path / 'data' / 'my_pairs'))
    make_my_pairs_tree(str(tmp_path / 'data' / 'levir_cc'),
                       {'train': 12, 'val': 4, 'test': 6})
    write_config(tmp_path / 'child.py', (
        f'_base_ = [{str(TINY_ADAPT)!r}]\n'
        'train_dataloader = dict(batch_size=4, num_workers=0,'
        ' persistent_workers=False)\n'
        'val_dataloader = dict(num_workers=0, persistent_workers=False)\n'
        'test_dataloader = dict(batch_size=1, num_workers=0,'
        ' persistent_workers=False)\n'
        'train_cfg = dict(max_epochs=1)\n'
        'randomness = dict(seed=0)\n'
        'default_hooks = dict(logger=dict(interval=1))\n'))
    grandchild = write_config(tmp_path / 'grandchild.py', (
        "_base_ = ['./child.py']\n"
        "data_root = 'data/levir_cc'\n"))
    work_dir = str(tmp_path / 'work')
    output = _run_tool('train.py', tmp_path, grandchild, '--work-dir',
                       work_dir)
    # 12 training pairs in batches of 4: 3 steps (the old folder: 2)
    assert re.search(r'Epoch\(train\)\s+\[1\]\[3/3\]', output), output[-3000:]
    dumped = Config.fromfile(osp.join(work_dir, 'grandchild.py'))
    assert loader_roots(dumped) == ['data/levir_cc'] * 3
    checkpoint = osp.join(work_dir, 'epoch_1.pth')
    output = _run_tool('test.py', tmp_path, grandchild, checkpoint,
                       '--work-dir', str(tmp_path / 'test'))
    # 6 test pairs, one a step (the old folder: 4)
    assert re.search(r'Epoch\(test\)\s+\[6/6\]', output), output[-3000:]


def test_build_vocab_reads_and_writes_under_the_childs_data_root(tmp_path):
    from tests.helpers import load_tool
    old, new = tmp_path / 'old', tmp_path / 'new'
    make_my_pairs_tree(str(old), {'train': 2})
    make_my_pairs_tree(str(new), {'train': 5})
    tiny_caption = TINY_ADAPT.parent / 'clip4idc-caption_tiny_my-pairs.py'
    child = write_config(tmp_path / 'child.py', (
        f'_base_ = [{str(tiny_caption)!r}]\n'
        f'data_root = {str(old)!r}\n'))
    grandchild = write_config(tmp_path / 'grandchild.py', (
        "_base_ = ['./child.py']\n"
        f'data_root = {str(new)!r}\n'))
    build_vocab = load_tool('tools/dataset_converters/build_vocab.py').main
    build_vocab([grandchild])
    # the vocabulary of the new folder's captions, in the new folder
    assert osp.isfile(new / 'caption_vocab_train.json')
    assert not osp.exists(old / 'caption_vocab_train.json')
    # and the captioner reads it from there
    cfg = Config.fromfile(grandchild)
    apply_data_root(cfg, grandchild)
    assert cfg.model.head.vocab == str(new / 'caption_vocab_train.json')
    # a child that binds its loaders to its own folder (data_root=data_root)
    # leaves them there for a grandchild: the tool stops naming them
    write_config(tmp_path / 'child.py', (
        f'_base_ = [{str(tiny_caption)!r}]\n'
        f'data_root = {str(old)!r}\n'
        'train_dataloader = dict(dataset=dict(data_root=data_root))\n'))
    with pytest.raises(ValueError,
                       match='train_dataloader.dataset.data_root'):
        build_vocab([grandchild])
    assert not osp.exists(old / 'caption_vocab_train.json')


def test_a_misspelt_data_root_stops_every_tool(tmp_path):
    # apply_data_root: what train.py, test.py, check_dataset.py and
    # build_vocab.py read a config through
    path = tmp_path / 'my_child.py'
    base = osp.join(REPO, 'projects/from_scratch/configs/clip4idc-adapt_tiny_my-pairs.py')
    path.write_text(f"_base_ = [{base!r}]\ndata_rot = 'data/elsewhere'\n")
    cfg = Config.fromfile(str(path))
    with pytest.raises(KeyError, match=r"'data_rot'.*did you mean 'data_root'.*'data/my_pairs'"):
        apply_data_root(cfg, str(path))


def test_cfg_options_data_root_unused_by_literal_loaders_is_a_warning(
        two_folders, monkeypatch):
    """A config whose loaders read a literal folder (a run's own config in
    its work dir: every path written out) given ``--cfg-options
    data_root=...``: the run reads the loaders' folder, and a warning says
    that the command line's data_root is not used, naming both folders and
    the fix (not an INFO line saying the paths follow data_root)."""
    from mmidc.runtime import data_root as data_root_module
    logged = []
    monkeypatch.setattr(data_root_module, 'print_log',
                        lambda msg, **kwargs: logged.append((msg, kwargs)))
    dumped = write_config(two_folders / 'dumped.py', (
        f"_base_ = [{str(BASES / 'image_pair.py')!r}]\n"
        "data_root = 'data/my_pairs'\n"
        + ''.join(f"{key} = dict(dataset=dict(data_root='data/my_pairs'))\n"
                  for key in LOADERS)))
    options = {'data_root': 'data/mp2'}
    cfg = Config.fromfile(dumped)
    cfg.merge_from_dict(options)
    apply_data_root(cfg, dumped, options)
    assert loader_roots(cfg) == ['data/my_pairs'] * 3
    (message, kwargs), = [(m, k) for m, k in logged if 'data/mp2' in m]
    assert kwargs.get('level') == logging.WARNING
    assert "--cfg-options data_root='data/mp2' is not used" in message
    assert dumped in message and "reads 'data/my_pairs'" in message
    assert 'give the config the run was made from' in message
    # loaders moved by the command line take data_root along, as before
    logged.clear()
    options = {f'{key}.dataset.data_root': 'data/mp2' for key in LOADERS}
    cfg = Config.fromfile(dumped)
    cfg.merge_from_dict(options)
    apply_data_root(cfg, dumped, options)
    assert cfg.data_root == 'data/mp2'
    assert not [k for _, k in logged if k.get('level') == logging.WARNING]
