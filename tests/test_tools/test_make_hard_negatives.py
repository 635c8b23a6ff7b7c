"""tools/dataset_converters/make_hard_negatives.py, run in-process."""
import filecmp
import json
import os
import os.path as osp

import pytest

from tests.helpers import load_tool
from tests.helpers.progress import RecordingBar
from mmidc.datasets import BirdsToWordsDataset
from tests.helpers.pair_trees import make_birds_to_words_tree, make_my_pairs_tree


@pytest.fixture(scope='module')
def tool():
    return load_tool('tools/dataset_converters/make_hard_negatives.py')


def test_writes_next_to_the_annotations_with_progress_same_for_a_seed(
        tool, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tool, 'ProgressBar', RecordingBar)
    root = str(tmp_path / 'birds')
    make_birds_to_words_tree(root, num_pairs=40, seed=1)
    args = ['--dataset-type', 'BirdsToWordsDataset', '--data-root', root,
            '--show', '2', '--min-similarity', '0.5']
    tool.main(args)
    printed = capsys.readouterr().out
    written = osp.join(root, 'hard_negatives_train.json')
    assert osp.isfile(written) and f'wrote {written}' in printed
    bar = RecordingBar.made[-1]  # the progress bar went through every caption
    assert bar.total == bar.done == len(json.load(open(written))['negatives'])
    assert 'confuse:' in printed and '->' in printed
    with open(written) as f:
        content = json.load(f)
    assert content['meta']['role_pairs'] == {'animal1': 'animal2',
                                             'animal2': 'animal1'}
    again = str(tmp_path / 'again.json')
    tool.main(args + ['--out', again])
    assert filecmp.cmp(written, again, shallow=False)
    other = str(tmp_path / 'other.json')
    tool.main(args + ['--out', other, '--seed', '1'])
    assert not filecmp.cmp(written, other, shallow=False)
    with pytest.raises(SystemExit, match='A:B'):
        tool.main(args + ['--role-pairs', 'before'])


def test_dataset_options_reach_the_data_set(tool, tmp_path, capsys):
    root = str(tmp_path / 'birds')
    # a download in another layout: images/<photo id>.jpg
    make_birds_to_words_tree(root, num_pairs=12, seed=1, url_style='medium',
                             image_name='{parent}{ext}')
    os.remove(osp.join(root, 'images', '1003.jpg'))  # a dead photo
    args = ['--dataset-type', 'BirdsToWordsDataset', '--data-root', root,
            '--show', '0', '--min-similarity', '0.5']
    with pytest.raises(FileNotFoundError, match='images/'):
        tool.main(args)
    with pytest.raises(FileNotFoundError, match='1003.jpg'):
        tool.main(args + ['--dataset-options', 'image_name={parent}{ext}'])
    out = str(tmp_path / 'negatives.json')
    tool.main(args + ['--out', out, '--dataset-options',
                      'image_name={parent}{ext}', 'skip_missing_images=True'])
    with open(out) as f:
        content = json.load(f)
    # the 7 train pairs left (of 8): pair 1's captions are not there
    dataset = BirdsToWordsDataset(root, image_name='{parent}{ext}',
                                  skip_missing_images=True)
    assert len(dataset) == 7
    captions = {c for i in range(7)
                for c in dataset.get_data_info(i)['gt_captions']}
    assert set(content['negatives']) == captions
    # dotted keys, as in --cfg-options
    os.rename(osp.join(root, 'images'), osp.join(root, 'photos'))
    tool.main(args + ['--out', out, '--dataset-options',
                      'image_name={parent}{ext}', 'skip_missing_images=True',
                      'data_prefix.img_path=photos'])
    with pytest.raises(SystemExit, match='image_nam.*--dataset-options'):
        tool.main(args + ['--dataset-options', 'image_nam=x'])


def test_own_pairs_by_dataset_type(tool, tmp_path, capsys):
    """ImagePairDataset takes no split: the tool's default split is not
    passed to it, and a --split given to it is an error naming ann_file."""
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    args = ['--dataset-type', 'ImagePairDataset', '--data-root', root,
            '--show', '0', '--dataset-options', 'ann_file=train.jsonl']
    tool.main(args)
    with open(osp.join(root, 'hard_negatives_train.json')) as f:
        negatives = json.load(f)['negatives']
    assert 'the red ball has moved' in negatives
    with pytest.raises(ValueError, match='no split.*ann_file=.*--dataset-options'):
        tool.main(args + ['--split', 'val'])


@pytest.mark.parametrize('option', ['--num-retrieve', '--num-replace'])
def test_a_negative_count_is_a_usage_error_naming_the_option(tool, option, capsys):
    with pytest.raises(SystemExit):
        tool.parse_args(['--dataset-type', 'CLEVRChangeDataset', '--data-root', 'x',
                         option, '-1'])
    assert f'{option}: expected a count, 0 or more, got -1' in capsys.readouterr().err


def test_the_default_file_is_the_one_read(tool, tmp_path):
    """Your own pairs' val file writes hard_negatives_val.json (not over the
    train file); a config's file is the one its SampleHardNegatives reads."""
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    args = ['--dataset-type', 'ImagePairDataset', '--data-root', root, '--show', '0']
    tool.main(args + ['--dataset-options', 'ann_file=train.jsonl'])
    train = osp.join(root, 'hard_negatives_train.json')
    with open(train) as f:
        before = f.read()
    tool.main(args + ['--dataset-options', 'ann_file=val.jsonl'])
    assert osp.isfile(osp.join(root, 'hard_negatives_val.json'))
    with open(train) as f:
        assert f.read() == before
    config = tmp_path / 'pretrain.py'
    config.write_text(
        f"data_root = {root!r}\n"
        "train_dataloader = dict(dataset=dict(\n"
        "    type='ImagePairDataset', data_root='{data_root}', ann_file='train.jsonl',\n"
        "    pipeline=[dict(type='TokenizeCaptions', mode='random'),\n"
        "              dict(type='SampleHardNegatives',\n"
        "                   negatives_file='{data_root}/negatives/mine.json')]))\n")
    tool.main([str(config), '--show', '0'])
    with open(osp.join(root, 'negatives', 'mine.json')) as f:
        assert json.load(f)['negatives'] == json.loads(before)['negatives']


def test_an_out_that_names_a_folder_is_refused_before_the_work(tool, tmp_path, capsys):
    (tmp_path / 'negatives').mkdir()
    out = str(tmp_path / 'negatives')
    with pytest.raises(SystemExit):
        tool.parse_args(['--dataset-type', 'CLEVRChangeDataset', '--data-root', 'x',
                         '--out', out])
    assert f'--out {out}: a folder; give the file to write' in capsys.readouterr().err
