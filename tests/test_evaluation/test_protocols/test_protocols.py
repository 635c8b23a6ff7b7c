"""The scoring protocols as registered components: shorthands, configs,
the data sets' no-change sentences, the rs_ids vocabulary (counted from
annotation files without images; a paper's word map; refused when empty)."""
import json
import logging

import pytest
from mmengine.logging import MMLogger

from mmidc.evaluation import IDCMetric
from mmidc.evaluation.metrics import CaptionScorer
from mmidc.evaluation.protocols import (PTBProtocol, PythonProtocol,
                                        RSIdsProtocol, RSWordsProtocol,
                                        build_protocol)
from mmidc.evaluation.protocols.rs_ids_protocol import annotation_captions
from mmidc.registry import SCORING_PROTOCOLS
from mmidc.text.no_change import NO_CHANGE_SENTENCES
from tests.helpers.rs_trees import real_excerpt

CHANGE = 'a road is built across the woods'
RECORDS = [
    dict(pair_id='c1', prediction='a house is built on the left',
         references=['a house is built on the left side .',
                     'a new building appears'], change_type='change'),
    dict(pair_id='c2', prediction=CHANGE, references=[CHANGE + ' .'],
         change_type='change'),
    dict(pair_id='n1', prediction='there is no difference .',
         references=['the scene is the same as before .'],
         change_type='none'),
]


def test_shorthands_and_configs_build_the_registered_protocols():
    assert {'PTBProtocol', 'PythonProtocol', 'RSWordsProtocol',
            'RSIdsProtocol'} <= set(SCORING_PROTOCOLS.module_dict)
    for name, cls in (('ptb', PTBProtocol), ('python', PythonProtocol),
                      ('rs_words', RSWordsProtocol)):
        assert type(build_protocol(name)) is cls
        assert build_protocol(name).name == name
    protocol = build_protocol(dict(type='RSIdsProtocol', min_word_freq=5,
                                   word_freq_rule='>',
                                   vocab_ann_file='x.json'))
    assert isinstance(protocol, RSIdsProtocol) and protocol.name == 'rs_ids'
    with pytest.raises(ValueError, match="choose from.*'rs_ids'"):
        build_protocol('rs_id')
    with pytest.raises(ValueError, match='Nope.*not a registered.*'
                       'RSIdsProtocol'):
        build_protocol(dict(type='Nope'))
    # rs_ids needs the captions its vocabulary counts
    with pytest.raises(ValueError, match='vocab_ann_file'):
        RSIdsProtocol(min_word_freq=5, word_freq_rule='>')


def test_no_change_sentences_are_the_data_sets():
    # the remote-sensing protocols: LEVIR-CC's by default, any data set's
    # by name (mmidc.text.no_change), none for coco-caption's
    assert RSWordsProtocol().no_change_sentences == \
        NO_CHANGE_SENTENCES['levir_cc']
    assert PTBProtocol().no_change_sentences is None
    assert RSWordsProtocol(no_change_sentences=None).no_change_sentences \
        is None
    protocol = RSWordsProtocol(no_change_sentences=['Nothing has changed.'])
    assert protocol.no_change_sentences == ('Nothing has changed.', )
    with pytest.raises(ValueError, match="no_change_sentences.*'no_set'") \
            as error:
        RSWordsProtocol(no_change_sentences='no_set')
    assert str(error.value).count('no_change_sentences') == 1  # named once
    # the metric's decision follows the protocol's sentences
    scorer = CaptionScorer(java=False, protocol=dict(
        type='RSWordsProtocol',
        no_change_sentences=['there is no difference']))
    assert scorer.score(RECORDS)['decision_acc'] == 100.
    scorer = CaptionScorer(java=False, protocol=dict(
        type='RSWordsProtocol', no_change_sentences=['nothing changed']))
    assert scorer.score(RECORDS)['no_change/decision_acc'] == 0.


def test_a_protocol_config_gives_the_shorthands_keys_and_numbers():
    shorthand = IDCMetric(tokenizer='rs_words', java=False,
                          out_file_prefix=None)
    component = IDCMetric(protocol=dict(type='RSWordsProtocol'), java=False,
                          out_file_prefix=None)
    expected = shorthand.compute_metrics([dict(r) for r in RECORDS])
    assert component.compute_metrics([dict(r) for r in RECORDS]) == expected
    assert 'decision_acc' in expected and 'change/CIDEr' in expected


def test_extra_protocols_add_prefixed_keys(tmp_path):
    ann = tmp_path / 'captions.json'
    ann.write_text(json.dumps({'images': [
        {'filename': f'{i}.png', 'split': 'train',
         'sentences': [{'raw': r} for r in rec['references']]}
        for i, rec in enumerate(RECORDS)]}))
    rs_ids = dict(type='RSIdsProtocol', min_word_freq=0, word_freq_rule='>',
                  vocab_ann_file=str(ann))
    metric = IDCMetric(tokenizer='rs_words', java=False, out_file_prefix=None,
                       extra_protocols=dict(rs_ids=rs_ids))
    scores = metric.compute_metrics([dict(r) for r in RECORDS])
    alone = IDCMetric(tokenizer='rs_words', java=False, out_file_prefix=None
                      ).compute_metrics([dict(r) for r in RECORDS])
    ids = IDCMetric(protocol=rs_ids, java=False, out_file_prefix=None
                    ).compute_metrics([dict(r) for r in RECORDS])
    # the main protocol's keys unchanged, the extra one's prefixed
    assert {k: v for k, v in scores.items() if '/' not in k or
            not k.startswith('rs_ids/')} == alone
    assert {k[len('rs_ids/'):]: v for k, v in scores.items()
            if k.startswith('rs_ids/')} == ids
    assert 'rs_ids/change/CIDEr' in scores and 'rs_ids/S_m' not in alone
    with pytest.raises(ValueError, match='extra_protocols'):
        IDCMetric(java=False, extra_protocols={'a/b': 'rs_words'})


def test_rs_ids_counts_an_annotation_file_without_images(tmp_path):
    """Every split of a real Dubai-CC excerpt (its exact form), no image
    on disk; Chg2Cap keeps the case (its Dubai-CC vocab.json has 'A')."""
    paths = []
    for name, content in real_excerpt('dubai_cc_excerpt.json').items():
        path = tmp_path / name.split('/')[-1]
        path.write_text(json.dumps(content))
        paths.append(str(path))
    captions = [c for p in paths for c in annotation_captions(p)]
    assert len(captions) == 5 * 10  # 10 pairs, every split
    kept_case = RSIdsProtocol(min_word_freq=0, word_freq_rule='>=',
                              vocab_ann_file=paths, lowercase=False)
    kept_case.prepare()
    lowered = RSIdsProtocol(min_word_freq=0, word_freq_rule='>=',
                            vocab_ann_file=paths)
    lowered.prepare()
    assert 'Nothing' in kept_case.vocab.word_to_id
    assert 'Nothing' not in lowered.vocab.word_to_id
    assert 'nothing' in lowered.vocab.word_to_id
    bad = tmp_path / 'bad.json'
    bad.write_text(json.dumps([{'filename': 'a.png'}]))
    with pytest.raises(ValueError, match='bad.json.*"images"'):
        annotation_captions(str(bad))


def test_a_papers_word_map_scores_with_its_ids(tmp_path):
    # a Chg2Cap vocab.json's form: specials first, then sorted words
    word_map = {'<NULL>': 0, '<UNK>': 1, '<START>': 2, '<END>': 3, 'a': 4,
                'built': 5, 'is': 6, 'road': 7}
    path = tmp_path / 'vocab.json'
    path.write_text(json.dumps(word_map))
    protocol = RSIdsProtocol(word_map=str(path))
    gts, res = protocol.tokenize(RECORDS[1:2])
    assert res['c2'] == ['4 7 6 5 1 1 1']  # across, the, woods: <UNK>
    # RSICC's WORDMAP_*.json: counter order, lowercase specials last
    rsicc = {'a': 1, 'road': 2, 'is': 3, 'built': 4, '<unk>': 5,
             '<start>': 6, '<end>': 7, '<pad>': 0}
    path.write_text(json.dumps(rsicc))
    gts, res = RSIdsProtocol(word_map=str(path)).tokenize(RECORDS[1:2])
    assert res['c2'] == ['1 2 3 4 5 5 5']


def test_an_empty_vocabulary_is_refused_and_many_unknown_words_warned(
        tmp_path, monkeypatch):
    """--min-word-freq 1000000 keeps no word: every word would be <UNK> and
    unrelated captions would score 100."""
    ann = tmp_path / 'captions.json'
    ann.write_text(json.dumps({'images': [
        {'filename': '1.png', 'sentences': [{'raw': 'a road is built'}]}]}))
    metric = IDCMetric(tokenizer='rs_ids', java=False, out_file_prefix=None,
                       protocol=dict(type='RSIdsProtocol',
                                     min_word_freq=1000000,
                                     word_freq_rule='>',
                                     vocab_ann_file=str(ann)))
    with pytest.raises(ValueError, match='no caption word.*min_word_freq='
                       '1000000.*--min-word-freq'):
        metric.compute_metrics([dict(r) for r in RECORDS])
    # a vocabulary of other captions: most reference words are <UNK>
    metric = IDCMetric(java=False, out_file_prefix=None, protocol=dict(
        type='RSIdsProtocol', min_word_freq=0, word_freq_rule='>',
        vocab_ann_file=str(ann)))
    logged = []
    logger = MMLogger.get_current_instance()
    monkeypatch.setattr(logger, 'log', lambda level, msg, *a, **k:
                        logged.append((level, msg)))
    metric.compute_metrics([dict(r) for r in RECORDS])
    # only 'a', 'road', 'is', 'built' known: 17 of the 26 reference words
    assert any(level == logging.WARNING and m.startswith(
        "'rs_ids': 65.4 % of the reference words are <UNK>")
        for level, m in logged)


def test_rs_ids_counts_a_folder_of_token_files():
    """Change-Agent's LEVIR-MCI token files (three, their exact form): the
    sentences without <START> / <END>, every split's file."""
    import os.path as osp
    from mmidc.evaluation.protocols.rs_ids_protocol import \
        token_folder_captions
    folder = osp.join(osp.dirname(__file__), '..', '..', 'data',
                      'levir_mci_tokens')
    captions = token_folder_captions(folder)
    assert len(captions) == 15
    assert captions[0] == 'there is no difference'
    protocol = RSIdsProtocol(min_word_freq=2, word_freq_rule='>',
                             vocab_ann_file=folder)
    protocol.prepare()
    # 'houses' is seen 7 times (train and val files), 'bareland' twice
    assert 'houses' in protocol.vocab.word_to_id
    assert 'bareland' not in protocol.vocab.word_to_id
    assert '<START>' in protocol.vocab.word_to_id  # a special word, id 2
    assert protocol.vocab.word_to_id['<START>'] == 2


def test_rs_ids_counts_the_tokens_field_as_rsicc_does(tmp_path):
    """RSICC's create_input_files.py counts each sentence's ``tokens``;
    Chg2Cap its ``raw`` (LEVIR-CC's excerpt, its exact form)."""
    ann = tmp_path / 'LevirCCcaptions.json'
    excerpt = real_excerpt('levir_cc_excerpt.json')['LevirCCcaptions.json']
    sentence = excerpt['images'][0]['sentences'][0]
    sentence = dict(sentence, raw=sentence['raw'] + ' Extra')
    excerpt['images'][0]['sentences'][0] = sentence
    ann.write_text(json.dumps(excerpt))
    raw = annotation_captions(str(ann))
    tokens = annotation_captions(str(ann), 'tokens')
    assert raw[0].endswith('. Extra') and tokens[0] == ' '.join(
        sentence['tokens'])
    vocab = RSIdsProtocol(min_word_freq=0, word_freq_rule='>',
                          vocab_ann_file=str(ann), vocab_field='tokens')
    vocab.prepare()
    assert 'extra' not in vocab.vocab.word_to_id
    with pytest.raises(ValueError, match="vocab_field"):
        RSIdsProtocol(min_word_freq=0, word_freq_rule='>',
                      vocab_ann_file=str(ann), vocab_field='words')
