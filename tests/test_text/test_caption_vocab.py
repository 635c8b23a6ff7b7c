"""CaptionVocab: CLIP ids <-> compact ids, building from captions, files and
checkpoints, decoding."""
import json

import pytest
import torch

from mmidc.text import (CLIP_VOCAB_SIZE, EOT_ID, SOT_ID, CaptionVocab,
                        build_caption_vocab, build_vocab_from_cfg, clip_tokenizer)

CAPTIONS = ['the red cube changed to blue.', 'there is no change', 'the small sphere moved']


def test_full_vocab_is_identity():
    vocab = CaptionVocab()
    ids = torch.tensor([[SOT_ID, 518, 736, EOT_ID, 0]])
    assert len(vocab) == CLIP_VOCAB_SIZE
    assert torch.equal(vocab.to_compact(ids), ids)
    assert torch.equal(vocab.to_clip(ids), ids)
    assert (vocab.pad_id, vocab.sot_id, vocab.eot_id, vocab.unk_id) == (0, SOT_ID, EOT_ID, None)


def test_restricted_vocab_round_trip_and_unk():
    vocab = build_caption_vocab(CAPTIONS)
    tokens = clip_tokenizer()(CAPTIONS, context_length=16)  # [3, 16]
    compact = vocab.to_compact(tokens)
    assert compact.max() < len(vocab) < 30
    assert (compact != vocab.unk_id).all()
    assert torch.equal(vocab.to_clip(compact), tokens)
    # pad, sot, eot have fixed places; an unseen word maps to unk and back to -1
    assert vocab.to_compact_id(0) == 0 and vocab.unk_id == 1
    unseen = clip_tokenizer().encode('zebra')[0]
    assert vocab.to_compact(torch.tensor([unseen])).item() == vocab.unk_id
    assert vocab.to_clip(torch.tensor([vocab.unk_id])).item() == -1


def test_build_from_tensors_and_nested_lists():
    tokens = clip_tokenizer()(CAPTIONS, context_length=16)
    assert torch.equal(build_caption_vocab(tokens).clip_ids,
                       build_caption_vocab([CAPTIONS[:2], [CAPTIONS[2]]]).clip_ids)
    with pytest.raises(ValueError, match='no captions'):
        build_caption_vocab([])


def test_decode_strips_specials_and_cleans_spaces():
    vocab = CaptionVocab()
    tokens = clip_tokenizer()(['The red cube changed to blue .'], context_length=16)[0]
    assert vocab.decode(tokens) == 'the red cube changed to blue.'
    # stops at the first end-of-text; drops a stray unk (-1)
    ids = [SOT_ID, 518, -1, 736, EOT_ID, 518]
    assert vocab.decode(ids) == 'the red'


def test_save_load_json_and_checkpoint(tmp_path):
    vocab = build_caption_vocab(CAPTIONS)
    path = tmp_path / 'vocab.json'
    vocab.save(str(path))
    assert all(isinstance(i, int) for i in json.loads(path.read_text()))
    assert torch.equal(CaptionVocab.from_file(str(path)).clip_ids, vocab.clip_ids)
    # with metadata: a dict whose clip_ids are the list
    vocab.save(str(path), meta=dict(source='three captions'))
    content = json.loads(path.read_text())
    assert content['source'] == 'three captions'
    assert torch.equal(build_vocab_from_cfg(str(path)).clip_ids, vocab.clip_ids)
    # a checkpoint is self-contained: the vocab is read back from its state dict
    ckpt = tmp_path / 'epoch_1.pth'
    torch.save({'meta': {}, 'state_dict': {'head.vocab.clip_ids': vocab.clip_ids}}, ckpt)
    assert torch.equal(build_vocab_from_cfg(str(ckpt)).clip_ids, vocab.clip_ids)


def test_a_missing_file_names_itself_and_the_tool(tmp_path):
    missing = str(tmp_path / 'caption_vocab_train.json')
    with pytest.raises(FileNotFoundError) as error:
        build_vocab_from_cfg(missing)
    assert missing in str(error.value)
    assert 'tools/dataset_converters/build_vocab.py CONFIG' in str(error.value)
    with pytest.raises(FileNotFoundError, match='missing.pth'):
        CaptionVocab.from_file(str(tmp_path / 'missing.pth'))


def test_a_file_in_a_missing_folder_names_the_folder_and_data_root(tmp_path):
    # a wrong data_root: the folder of the vocabulary file does not exist, so
    # writing the file (build_vocab.py) is not the fix
    missing = str(tmp_path / 'my_pair' / 'caption_vocab_train.json')
    with pytest.raises(FileNotFoundError) as error:
        build_vocab_from_cfg(missing)
    message = str(error.value)
    assert missing in message
    assert f'{tmp_path / "my_pair"} does not exist' in message
    assert 'data_root' in message and 'vocab_file' in message
    assert 'build_vocab.py CONFIG\n' not in message


def test_a_checkpoint_without_a_vocabulary_says_it_is_not_a_captioner(tmp_path):
    # an adaptation-stage (retriever) checkpoint given to a captioning config
    ckpt = str(tmp_path / 'best_rsum_epoch_1.pth')
    torch.save({'meta': {}, 'state_dict': {'backbone.proj': torch.zeros(2)}}, ckpt)
    with pytest.raises(ValueError) as error:
        build_vocab_from_cfg(ckpt)
    message = str(error.value)
    assert ckpt in message
    assert 'not the checkpoint of a captioning run' in message
    assert 'IDCRetrievalInferencer' in message


def test_a_data_set_option_points_to_the_vocabulary_file():
    with pytest.raises(TypeError, match='build_vocab.py CONFIG'):
        build_vocab_from_cfg(dict(captions_from=dict(type='CLEVRChangeDataset')))
    with pytest.raises(TypeError, match='expected None'):
        build_vocab_from_cfg(3)


def test_state_dict_mismatch_names_the_key():
    vocab = build_caption_vocab(CAPTIONS)
    other = build_caption_vocab(CAPTIONS[:1])
    with pytest.raises(RuntimeError, match='clip_ids'):
        other.load_state_dict(vocab.state_dict())


def test_build_from_a_data_set():

    class Captions:  # the two methods build_caption_vocab uses of a data set
        def __len__(self):
            return len(CAPTIONS)

        def get_data_info(self, i):
            return dict(gt_captions=[CAPTIONS[i]])

    assert torch.equal(build_caption_vocab(Captions()).clip_ids,
                       build_caption_vocab(CAPTIONS).clip_ids)
