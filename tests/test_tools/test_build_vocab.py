"""tools/dataset_converters/build_vocab.py: the caption vocabulary from a
config (to the file its model reads) or from a data set type and root."""
import os
import os.path as osp

import pytest

from mmidc.synthetic import generate_dataset
from mmidc.text import CaptionVocab
from tests.helpers import REPO, load_tool
from tests.helpers.pair_trees import make_my_pairs_tree, read_json

TOOL = 'tools/dataset_converters/build_vocab.py'


def test_from_a_config_to_the_file_its_model_reads(tmp_path):
    root = str(tmp_path / 'synthetic')
    generate_dataset(root, 6, seed=1, image_size=(48, 32), progress=False)
    out = str(tmp_path / 'vocab' / 'caption_vocab_train.json')
    config = str(REPO / 'configs/idc_pcl/idc-pcl-caption_tiny_synthetic-clevr-change.py')
    load_tool(TOOL).main([config, '--cfg-options', f'train_dataloader.dataset.data_root={root}',
                          f'model.cross_modal.vocab={out}'])
    written = read_json(out)
    assert written['source'] == f'CLEVR-Change {root} (train)'
    # the same vocabulary as the generator's file
    generated = read_json(osp.join(root, 'caption_vocab_train.json'))
    assert written['clip_ids'] == generated['clip_ids']
    assert written['captions_sha256'] == generated['captions_sha256']


def test_from_a_data_set_type_with_its_options(tmp_path):
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    load_tool(TOOL).main(['--dataset-type', 'ImagePairDataset', '--data-root', root,
                          '--dataset-options', 'ann_file=val.jsonl'])
    vocab = CaptionVocab.from_file(osp.join(root, 'caption_vocab_val.json'))
    assert 'ball' in vocab.decode(vocab.clip_ids[2:])
    out = str(tmp_path / 'other.json')
    load_tool(TOOL).main(['--dataset-type', 'ImagePairDataset', '--data-root', root,
                          '--dataset-options', 'ann_file=train.jsonl', '--out', out])
    assert osp.isfile(out)


def test_a_split_for_a_data_set_type_without_splits_names_ann_file(tmp_path):
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    with pytest.raises(ValueError, match='ImagePairDataset takes no split.*ann_file=.val.jsonl'):
        load_tool(TOOL).main(['--dataset-type', 'ImagePairDataset', '--data-root', root,
                              '--split', 'val'])


def test_an_option_the_data_set_does_not_take_is_named(tmp_path):
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    with pytest.raises(SystemExit, match="ImagePairDataset: .*'ann_fil'.*--dataset-options "
                       'ann_fil'):
        load_tool(TOOL).main(['--dataset-type', 'ImagePairDataset', '--data-root', root,
                              '--dataset-options', 'ann_fil=val.jsonl'])


@pytest.mark.parametrize('name', ['existing', 'new/'])
def test_an_out_that_names_a_folder_is_a_usage_error(tmp_path, capsys, name):
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    (tmp_path / 'existing').mkdir()
    out = f'{tmp_path}/{name}'  # pathlib would drop the trailing slash
    with pytest.raises(SystemExit):
        load_tool(TOOL).main(['--dataset-type', 'ImagePairDataset', '--data-root', root,
                              '--dataset-options', 'ann_file=val.jsonl', '--out', out])
    assert f'--out {out}: a folder; give the file to write' in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ['existing', 'pairs']  # nothing written
    assert os.listdir(tmp_path / 'existing') == []
