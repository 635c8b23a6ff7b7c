"""mmidc.datasets.preparation.vocab_sources: which data sets of a config the caption
vocabulary is built from, where its file goes, what it holds."""
import json
import os.path as osp

import pytest
from mmengine.config import Config

from mmidc.text import CaptionVocab, clip_tokenizer
from mmidc.datasets.preparation.vocab_sources import (
    caption_datasets, config_vocab_file, default_vocab_file, ensure_vocab_file,
    write_dataset_vocab_file)
from mmidc.text.vocab_file import captions_key
from tests.helpers.pair_trees import make_clevr_change_tree, make_my_pairs_tree, read_json

TOKENISED = [dict(type='TokenizeCaptions'), dict(type='PackIDCInputs')]


def test_written_from_a_data_set_config(tmp_path):
    root = str(tmp_path / 'clevr')
    splits = make_clevr_change_tree(root)
    out = write_dataset_vocab_file(dict(type='CLEVRChangeDataset', data_root=root,
                                pipeline=TOKENISED))
    assert out == osp.join(root, 'caption_vocab_train.json')
    content = read_json(out)
    # the change and no-change captions of the training scenes, in order
    change = read_json(osp.join(root, 'change_captions.json'))
    no_change = read_json(osp.join(root, 'no_change_captions.json'))
    captions = [c for s in splits['train'] for c in (
        change[f'CLEVR_default_{s:06d}.png'] + no_change[f'CLEVR_default_{s:06d}.png'])]
    assert content['num_captions'] == len(captions)
    assert content['captions_sha256'] == captions_key(captions)
    assert content['source'] == f'CLEVR-Change {root} (train)'
    ids = {i for c in captions for i in clip_tokenizer().encode(c)}
    assert content['clip_ids'] == sorted(ids | {49406, 49407})
    vocab = CaptionVocab.from_file(out)
    assert vocab.clip_ids.tolist() == [0, -1] + content['clip_ids']


def test_default_file_of_a_data_set_list(tmp_path):
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    out = write_dataset_vocab_file([dict(type='ImagePairDataset', data_root=root,
                                 ann_file='train.jsonl')])
    assert out == osp.join(root, 'caption_vocab_train.json')
    assert read_json(out)['source'].endswith('train.jsonl')
    with pytest.raises(TypeError, match='mmidc.text.write_vocab_file'):
        write_dataset_vocab_file(['a red cube'], str(tmp_path / 'captions.json'))
    with pytest.raises(ValueError, match='no data set'):
        write_dataset_vocab_file([])

    class Named:
        split, data_root, ann_file = 'val', '/data/x', '/data/x/ann.json'

    assert default_vocab_file(Named()) == '/data/x/caption_vocab_val.json'


def test_caption_datasets_are_the_tokenised_parts():
    clevr = dict(type='CLEVRChangeDataset', data_root='a', pipeline=TOKENISED)
    birds = dict(type='NABirdsPairDataset', data_root='b',
                 pipeline=[dict(type='PackIDCInputs')])
    cfg = Config(dict(train_dataloader=dict(dataset=dict(
        type='ConcatDataset', datasets=[
            dict(type='RepeatDataset', times=2, dataset=clevr), birds]))))
    assert caption_datasets(cfg) == [dict(clevr, pipeline=[])]
    # none tokenises its captions (e.g. a custom transform): every part
    cfg.train_dataloader.dataset.datasets[0].dataset.pipeline = []
    assert [d['data_root'] for d in caption_datasets(cfg)] == ['a', 'b']


def test_the_file_a_config_names():
    cfg = Config(dict(vocab_file='data/x/caption_vocab_train.json',
                      model=dict(head=dict(vocab=None))))
    assert config_vocab_file(cfg) == 'data/x/caption_vocab_train.json'
    cfg.model.head.vocab = 'data/y/caption_vocab_train.json'
    assert config_vocab_file(cfg) == 'data/y/caption_vocab_train.json'
    cfg.model.head.vocab = 'work_dirs/a/epoch_3.pth'  # a checkpoint: not a file to write
    assert config_vocab_file(cfg) == 'data/x/caption_vocab_train.json'
    cfg.model.heads = [dict(vocab='data/y/v.json'), dict(vocab='data/z/v.json')]
    with pytest.raises(ValueError, match='several'):
        config_vocab_file(cfg)
    assert config_vocab_file(Config(dict(model=dict()))) is None


def test_the_same_captions_give_the_same_file(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    source = dict(type='CLEVRChangeDataset', data_root=root)
    first = open(write_dataset_vocab_file(source, str(tmp_path / 'a.json'))).read()
    assert open(write_dataset_vocab_file(source, str(tmp_path / 'b.json'))).read() == first
    assert json.loads(first)['clip_ids'] == sorted(json.loads(first)['clip_ids'])


def test_ensure_writes_only_a_missing_file(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    source = dict(type='CLEVRChangeDataset', data_root=root)
    out = ensure_vocab_file(source)
    assert out == osp.join(root, 'caption_vocab_train.json')
    with open(out, 'w') as f:
        f.write('[320]')  # kept as it is
    assert ensure_vocab_file(source) == out
    assert open(out).read() == '[320]'
