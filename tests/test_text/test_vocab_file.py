"""mmidc.text.vocab_file: the file of a list of captions (its form is read
back by CaptionVocab; a data set's file: test_datasets/test_vocab_sources.py)."""
import pytest

from mmidc.text import CaptionVocab, clip_tokenizer
from mmidc.text.vocab_file import captions_key, vocab_file_name, write_vocab_file
from tests.helpers.pair_trees import read_json


def test_the_file_of_a_list_of_captions(tmp_path):
    captions = ['a red cube', 'a blue ball']
    out = str(tmp_path / 'captions.json')
    assert write_vocab_file(captions, out) == out
    content = read_json(out)
    assert content['source'] == 'captions'
    assert content['num_captions'] == 2
    assert content['captions_sha256'] == captions_key(captions)
    ids = {i for c in captions for i in clip_tokenizer().encode(c)}
    assert content['clip_ids'] == sorted(ids | {49406, 49407})
    assert CaptionVocab.from_file(out).clip_ids.tolist() == [0, -1] + content['clip_ids']
    named = write_vocab_file(captions, str(tmp_path / 'n.json'), source_name='two')
    assert read_json(named)['source'] == 'two'
    assert vocab_file_name('val') == 'caption_vocab_val.json'


def test_captions_key_depends_on_order_and_boundaries():
    assert captions_key(['a b', 'c']) != captions_key(['c', 'a b'])
    assert captions_key(['a b', 'c']) != captions_key(['a', 'b c'])


def test_only_captions(tmp_path):
    with pytest.raises(TypeError, match='write_dataset_vocab_file'):
        write_vocab_file([dict(type='CLEVRChangeDataset')], str(tmp_path / 'v.json'))
