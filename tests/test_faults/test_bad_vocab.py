"""A caption vocabulary file of the wrong form, or of other captions, stops
the run before training, naming the file (and the share of the training
captions' tokens it lacks); a file that is not valid JSON is named too, as
every JSON file read at start-up is."""
import json
import os.path as osp
from collections import Counter

import pytest
from mmengine.config import Config

import mmidc  # noqa: F401
from mmidc.datasets.clevr_change import CLEVRChangeDataset
from mmidc.datasets.preparation.hard_negatives import load_hard_negatives
from mmidc.datasets.image_editing_request import ImageEditingRequestDataset
from mmidc.datasets.image_pair_dataset import ImagePairDataset
from mmidc.datasets.spot_the_diff import SpotTheDiffDataset
from mmidc.runtime.config_check import check_caption_vocab
from mmidc.text import build_vocab_from_cfg, clip_tokenizer, write_vocab_file
from mmidc.datasets.preparation.vocab_sources import training_captions
from tests.helpers import logged_records, pair_trees
from tests.helpers.tiny_run import captioner_config, run_train, write_tiny_config

BIRDS = ['a small brown bird with a short beak', 'the robin has a red breast',
         'this warbler is yellow']


# -- the file's form ----------------------------------------------------------
@pytest.mark.parametrize('content, names', [
    ({'clip_ids': []}, ['"clip_ids"', 'no caption token']),
    ({'clip_ids': [True, False]}, ['"clip_ids"', 'item 0', 'True']),
    ({'clip_ids': [320, '321']}, ['"clip_ids"', 'item 1', "'321'"]),
    ({'clip_ids': [320, 49408]}, ['"clip_ids"', 'item 1', '49408']),
    ({'clip_ids': {'a': 1}}, ['"clip_ids"', 'list']),
    ({'source': 'birds'}, ['no key "clip_ids"']),
    ([49406, 49407], ['no caption token']),
    ('320', ['list']),
], ids=['empty', 'bools', 'string-id', 'out-of-range', 'dict', 'no-key',
        'only-specials', 'string'])
def test_a_vocabulary_file_of_the_wrong_form_is_named(tmp_path, content, names):
    path = tmp_path / 'caption_vocab_train.json'
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError) as err:
        build_vocab_from_cfg(str(path))
    assert str(path) in str(err.value)
    for name in names:
        assert name in str(err.value)


# -- a vocabulary of other captions -------------------------------------------
@pytest.fixture(scope='module')
def captioner(tmp_path_factory):
    """The tiny captioner config (its vocabulary file written from its
    training captions) and those captions."""
    folder = str(tmp_path_factory.mktemp('vocab'))
    config = write_tiny_config(folder, max_epochs=1, extra=captioner_config())
    captions, _ = training_captions(Config.fromfile(config))
    return config, captions


def with_vocab(config: str, path: str) -> Config:
    cfg = Config.fromfile(config)
    cfg.model.head.vocab = path
    return cfg


def test_a_vocabulary_of_another_data_set_stops_the_run(captioner, tmp_path):
    config, captions = captioner
    birds = write_vocab_file(BIRDS, out=str(tmp_path / 'birds.json'),
                             source_name='three bird captions')
    with pytest.raises(ValueError) as err:
        check_caption_vocab(with_vocab(config, birds))
    message = str(err.value)
    tokenizer = clip_tokenizer()
    known = set(pair_trees.read_json(birds)['clip_ids'])
    ids = [i for c in captions for i in tokenizer.encode(c)]
    share = sum(i not in known for i in ids) / len(ids)
    assert share > 0.5
    for part in (birds, f'{share:.1%}', 'three bird captions',
                 'build_vocab.py CONFIG'):
        assert part in message, (part, message)


def test_a_few_missing_tokens_are_a_warning_with_their_share(captioner,
                                                             tmp_path):
    config, captions = captioner
    tokenizer = clip_tokenizer()
    counts = Counter(i for c in captions for i in tokenizer.encode(c))
    rare = min(counts, key=counts.get)  # one token of the training captions
    share = counts[rare] / sum(counts.values())
    assert 0 < share < 0.05
    own = pair_trees.read_json(osp.join(osp.dirname(config), 'data',
                                        'caption_vocab_train.json'))
    path = str(tmp_path / 'almost.json')
    with open(path, 'w') as f:
        json.dump(dict(own, clip_ids=[i for i in own['clip_ids'] if i != rare],
                       captions_sha256='other captions'), f)
    with logged_records() as records:
        check_caption_vocab(with_vocab(config, path))
    warnings = [r for r in records if r.levelname == 'WARNING']
    assert len(warnings) == 1 and path in warnings[0].getMessage()
    assert f'{share:.1%}' in warnings[0].getMessage()


def test_the_vocabulary_of_the_training_captions_passes(captioner, tmp_path):
    config, captions = captioner
    check_caption_vocab(Config.fromfile(config))  # the file of these captions
    # the same tokens from other captions: nothing missing
    path = write_vocab_file(captions + ['the cube'], out=str(tmp_path / 'v.json'))
    check_caption_vocab(with_vocab(config, path))


def test_train_tool_stops_before_training(captioner, tmp_path):
    config, _ = captioner
    birds = write_vocab_file(BIRDS, out=str(tmp_path / 'birds.json'))
    work_dir = str(tmp_path / 'work')
    result = run_train(config, '--work-dir', work_dir, '--cfg-options',
                       f'model.head.vocab={birds}')
    assert result.returncode != 0
    assert f'{birds}: ' in result.stderr and 'are not in this caption ' \
        'vocabulary' in result.stderr, result.stderr[-3000:]
    assert not osp.exists(osp.join(work_dir, 'epoch_1.pth'))


# -- files that are not valid JSON --------------------------------------------
def _clevr(root):
    pair_trees.make_clevr_change_tree(root)
    return lambda: CLEVRChangeDataset(root, 'train')


def _own(ann):
    def make(root):
        pair_trees.make_generic_tree(root, ann_name=ann)
        return lambda: ImagePairDataset(ann_file=ann, data_root=root,
                                        data_prefix=dict(img_path='imgs'))
    return make


def _std(root):
    pair_trees.make_spot_the_diff_tree(root)
    return lambda: SpotTheDiffDataset(root, 'train')


def _ier(root):
    pair_trees.make_ier_tree(root)
    return lambda: ImageEditingRequestDataset(root, 'train')


def _vocab(root):
    write_vocab_file(BIRDS, out=osp.join(root, 'caption_vocab_train.json'))
    return lambda: build_vocab_from_cfg(
        osp.join(root, 'caption_vocab_train.json'))


def _negatives(root):
    path = osp.join(root, 'hard_negatives.json')
    with open(path, 'w') as f:
        json.dump(dict(meta={}, negatives={}), f)
    return lambda: load_hard_negatives(path)


#: file read at start-up -> (make it and what reads it, the file)
JSON_FILES = {
    'vocabulary': (_vocab, 'caption_vocab_train.json'),
    'clevr-splits': (_clevr, 'splits.json'),
    'clevr-type-mapping': (_clevr, 'type_mapping.json'),
    'clevr-captions': (_clevr, 'change_captions.json'),
    'own-pairs-json': (_own('pairs.json'), 'pairs.json'),
    'own-pairs-jsonl': (_own('pairs.jsonl'), 'pairs.jsonl'),
    'spot-the-diff': (_std, 'annotations/train.json'),
    'image-editing-request': (_ier, 'train.json'),
    'hard-negatives': (_negatives, 'hard_negatives.json'),
}


@pytest.mark.parametrize('name', sorted(JSON_FILES))
def test_a_json_file_that_does_not_parse_is_named(name, tmp_path):
    make, file = JSON_FILES[name]
    root = str(tmp_path)
    read = make(root)
    read()  # the intact file reads
    path = osp.join(root, file)
    with open(path) as f:
        text = f.read()
    with open(path, 'w') as f:
        f.write(text[:len(text) // 2])  # cut mid-file
    with pytest.raises(ValueError) as err:
        read()
    assert path in str(err.value) and 'not valid JSON' in str(err.value)
