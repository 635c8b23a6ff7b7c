"""The scoring protocols of IDCMetric's ``tokenizer`` ('rs_words',
'rs_ids'), S*m, the change / no-change subsets and the no-change decision
accuracy; open change types through the score table."""
import pytest
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge

from mmidc.evaluation.metrics import CaptionScorer, IDCMetric
from mmidc.evaluation.metrics.caption_scorer import (change_type_subsets,
                                                     format_score_table,
                                                     no_change_decisions,
                                                     subset_counts)
from mmidc.evaluation.metrics.java import find_java
from mmidc.evaluation.protocols.rs_vocab import (RSWordVocab, rs_id_words,
                                                 rs_words)
from tests.helpers.coco_reference import (close_reference_meteor,
                                          reference_meteor)

NO_JAVA = find_java() is None


@pytest.fixture(scope='module', autouse=True)
def stop_reference_meteor():
    """pycocoevalcap's METEOR (shared with test_idc_metric.py) stopped after
    the last module that scores against it."""
    yield
    close_reference_meteor()


def record(pid, prediction, references, change_type='unknown'):
    return dict(pair_id=pid, prediction=prediction, references=references,
                change_type=change_type)


#: LEVIR-CC-like pairs: two change pairs, two no-change pairs.
RS_RECORDS = [
    record('c1', 'A new house is built on the left.',
           ['a house is built on the left side .',
            'A new building appears on the left.',
            'there is a new house'], 'change'),
    record('c2', 'the scene is the same as before',
           ['a road is built across the woods .',
            'many trees are removed for a road'], 'change'),
    record('n1', 'The scene is the same as before.',
           ['the scene is the same as before .',
            'there is no difference'], 'none'),
    record('n2', 'a road is built',
           ['no change has occurred .', 'almost nothing has changed'],
           'none'),
]


def test_rs_words_and_rs_id_words_by_hand():
    assert rs_words('  The Scene is the same as before . ') == \
        'the scene is the same as before'
    assert rs_words('a house.is built') == 'a houseis built'
    assert rs_id_words('A road, trees; built? Yes.') == [
        'a', 'road', ',', 'trees', ';', 'built', 'yes']


def test_vocab_threshold_rule_is_explicit():
    captions = ['road road tree', 'a road']  # road 3, tree 1, a 1
    strict = RSWordVocab(captions, 1, '>')   # RSICC: more than once
    assert list(strict.word_to_id)[4:] == ['road']
    assert strict.encode('the road tree') == '1 4 1'
    inclusive = RSWordVocab(captions, 1, '>=')  # Chg2Cap: at least once
    assert list(inclusive.word_to_id)[4:] == ['a', 'road', 'tree']
    assert inclusive.encode('the road tree') == '1 5 6'
    with pytest.raises(ValueError, match="word_freq_rule.*'>='"):
        RSWordVocab(captions, 1, '=>')
    with pytest.raises(ValueError, match='min_word_freq'):
        RSWordVocab(captions, -1, '>')


def test_protocols_by_hand():
    """BLEU-1 and ROUGE-L of one pair, computed by hand, under each
    protocol: 'rs_ids' merges the words outside its vocabulary."""
    records = [record('p', 'A house is old.', ['a new house is built'])]
    brevity = 2.718281828 ** (1 - 5 / 4)  # 4 words against 5
    words = CaptionScorer(metrics=('Bleu', 'ROUGE_L'), java=False,
                          tokenizer='rs_words').score(records, False)
    assert words['Bleu_1'] == pytest.approx(100 * 3 / 4 * brevity, abs=1e-3)
    # LCS 3 (a house is): P = 3/4, R = 3/5, F with beta 1.2
    p, r, b2 = 3 / 4, 3 / 5, 1.2 ** 2
    assert words['ROUGE_L'] == pytest.approx(
        100 * (1 + b2) * p * r / (r + b2 * p), abs=1e-6)
    vocab = RSWordVocab(['a house is'], 0, '>')  # old, new, built: <UNK>
    assert vocab.encode('A house is old.') == '4 5 6 1'
    ids = CaptionScorer(metrics=('Bleu', 'ROUGE_L'), java=False,
                        tokenizer='rs_ids', vocab=vocab).score(records, False)
    # <UNK> for "old" matches the <UNK> of "new" or "built": 4 of 4 words
    assert ids['Bleu_1'] == pytest.approx(100 * brevity, abs=1e-3)
    p, r = 4 / 4, 4 / 5
    assert ids['ROUGE_L'] == pytest.approx(
        100 * (1 + b2) * p * r / (r + b2 * p), abs=1e-6)
    # a comma: the PTB protocol drops it, 'rs_words' keeps it on its word
    records = [record('p', 'A house, is old.', ['a new house is built'])]
    ptb = CaptionScorer(metrics=('Bleu', ), java=False,
                        tokenizer='python').score(records, False)
    assert ptb['Bleu_1'] == pytest.approx(100 * 3 / 4 * brevity, abs=1e-3)
    words = CaptionScorer(metrics=('Bleu', ), java=False,
                          tokenizer='rs_words').score(records, False)
    assert words['Bleu_1'] == pytest.approx(100 * 2 / 4 * brevity, abs=1e-3)


def _pycocoevalcap(gts, res, meteor=True):
    scores = {}
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    scores.update({f'Bleu_{n}': 100 * v for n, v in enumerate(bleu, 1)})
    if meteor:
        scores['METEOR'] = 100 * reference_meteor().compute_score(gts, res)[0]
    scores['ROUGE_L'] = 100 * Rouge().compute_score(gts, res)[0]
    scores['CIDEr'] = 100 * Cider().compute_score(gts, res)[0]
    return scores


@pytest.mark.skipif(NO_JAVA, reason='METEOR needs Java')
def test_rs_words_is_pycocoevalcap_on_ccexpert_words():
    """CCExpert's eval_CCExpert.py: lowercase, drop every '.', then
    pycocoevalcap's four scorers; S*m their mean."""
    def ccexpert(sentence):  # its process_text_list, whitespace split
        return ' '.join(sentence.lower().replace('.', '').split())
    gts = {r['pair_id']: [ccexpert(c) for c in r['references']]
           for r in RS_RECORDS}
    res = {r['pair_id']: [ccexpert(r['prediction'])] for r in RS_RECORDS}
    expected = _pycocoevalcap(gts, res)
    metric = IDCMetric(tokenizer='rs_words', out_file_prefix=None)
    scores = metric.compute_metrics([dict(r) for r in RS_RECORDS])
    for key, value in expected.items():
        assert scores[key] == pytest.approx(value, abs=1e-9), key
    assert scores['S_m'] == pytest.approx(
        (expected['Bleu_4'] + expected['METEOR'] + expected['ROUGE_L']
         + expected['CIDEr']) / 4, abs=1e-9)
    # each subset is scored on its own pairs
    change = [r for r in RS_RECORDS if r['change_type'] == 'change']
    alone = _pycocoevalcap({r['pair_id']: gts[r['pair_id']] for r in change},
                           {r['pair_id']: res[r['pair_id']] for r in change},
                           meteor=False)
    for key in ('Bleu_4', 'ROUGE_L', 'CIDEr'):
        assert scores[f'change/{key}'] == pytest.approx(alone[key], abs=1e-9)


def test_rs_ids_is_pycocoevalcap_on_id_strings():
    """RSICC / Chg2Cap get_eval_score: the id strings of each sentence."""
    word_ids = {'a': 4, 'built': 5, 'house': 6, 'is': 7, 'left': 8, 'new': 9,
                'on': 10, 'road': 11, 'same': 12, 'scene': 13, 'the': 14}

    def by_hand(sentence):
        words = sentence.lower().replace('.', '').split()
        return ' '.join(str(word_ids.get(w, 1)) for w in words)
    gts = {r['pair_id']: [by_hand(c) for c in r['references']]
           for r in RS_RECORDS}
    res = {r['pair_id']: [by_hand(r['prediction'])] for r in RS_RECORDS}
    expected = _pycocoevalcap(gts, res, meteor=False)
    # these words, each seen at least twice in the vocabulary captions
    vocab_captions = [' '.join(word_ids)] * 2 + ['trees appear']
    scorer = CaptionScorer(java=False, tokenizer='rs_ids',
                           vocab=RSWordVocab(vocab_captions, 2, '>='))
    assert scorer.vocab.word_to_id == {
        '<NULL>': 0, '<UNK>': 1, '<START>': 2, '<END>': 3, **word_ids}
    scores = scorer.score(RS_RECORDS)
    for key, value in expected.items():
        assert scores[key] == pytest.approx(value, abs=1e-9), key
    # with '>' the same threshold keeps nothing: every word is <UNK>
    assert RSWordVocab(vocab_captions, 2, '>').encode('the road') == '1 1'


def test_change_split_and_no_change_decision_accuracy():
    scorer = CaptionScorer(java=False, tokenizer='rs_words',
                           no_change_sentences=[
                               'the scene is the same as before',
                               'there is no difference',
                               'no change has occurred'])
    scores = scorer.score(RS_RECORDS)
    # change pairs: c1 right (a change sentence), c2 wrong (no-change one);
    # no-change pairs: n1 right, n2 wrong
    assert scores['change/decision_acc'] == 50.
    assert scores['no_change/decision_acc'] == 50.
    assert scores['decision_acc'] == 50.
    shares = no_change_decisions(
        RS_RECORDS[:1] + RS_RECORDS[2:3], ['The scene is the same as before.'])
    assert shares == {'change': 100., 'no_change': 100., 'total': 100.}
    # untyped pairs are not decided
    assert no_change_decisions([record('u', 'x', ['y'])], ['x']) is None
    assert set(change_type_subsets(RS_RECORDS)) == {'change', 'no_change'}
    assert subset_counts(RS_RECORDS) == {'total': 4, 'change': 2,
                                         'no_change': 2}
    # the coco-caption protocol scores no decision unless asked
    ptb = IDCMetric(java=False, out_file_prefix=None)
    assert 'decision_acc' not in ptb.compute_metrics(
        [dict(r) for r in RS_RECORDS])


def test_open_change_types_through_the_metric_table():
    records = [
        record('1', 'a house is built', ['a house is built'], 'building'),
        record('2', 'a road is built', ['a road appears'], 'road'),
        record('3', 'a road is built', ['a wide road is built'], 'road'),
        record('4', 'nothing changed', ['nothing has changed'], 'none'),
        record('5', 'something', ['something else'], 'unknown'),
    ]
    metric = IDCMetric(java=False, out_file_prefix=None)
    scores = metric.compute_metrics([dict(r) for r in records])
    subsets = [k[:-len('/CIDEr')] for k in scores if k.endswith('/CIDEr')]
    assert subsets == ['building', 'road', 'change', 'no_change']
    counts = subset_counts(records)
    assert counts == {'total': 5, 'building': 1, 'road': 2, 'change': 3,
                      'no_change': 1}
    table = format_score_table(scores, counts).splitlines()
    assert [line.split()[0] for line in table[1:6]] == [
        'total', 'building', 'road', 'change', 'no_change']
    # each type row is its own pairs' score
    alone = CaptionScorer(java=False).score(records[1:3], per_type=False)
    assert scores['road/CIDEr'] == pytest.approx(alone['CIDEr'])
    # CLEVR-Change's types keep its names (the keys save_best reads)
    clevr = [dict(r, change_type=t) for r, t in
             zip(records, ['color', 'move', 'move', 'none', 'unknown'])]
    assert list(change_type_subsets(clevr)) == [
        'color', 'move', 'semantic', 'distractor']
    # one change type named 'change': one row
    assert list(change_type_subsets(RS_RECORDS)) == ['change', 'no_change']
    # names given by the config
    assert list(change_type_subsets(records, dict(
        change='changed', no_change='same'))) == [
            'building', 'road', 'changed', 'same']


def test_a_type_named_like_another_subset_is_an_error():
    records = [record('1', 'x', ['x'], 'no_change'),
               record('2', 'y', ['y'], 'none')]
    with pytest.raises(ValueError, match="'no_change'.*another name"):
        change_type_subsets(records)
    with pytest.raises(ValueError, match="'total'"):
        change_type_subsets([record('1', 'x', ['x'], 'total')])


def test_rs_ids_options_are_checked_at_construction(tmp_path):
    with pytest.raises(ValueError, match='min_word_freq'):
        IDCMetric(tokenizer='rs_ids', java=False, word_freq_rule='>')
    with pytest.raises(ValueError, match='word_freq_rule'):
        IDCMetric(tokenizer='rs_ids', java=False, min_word_freq=5)
    with pytest.raises(ValueError, match='vocab_datasets'):
        IDCMetric(tokenizer='rs_ids', java=False, min_word_freq=5,
                  word_freq_rule='>')
    with pytest.raises(ValueError, match='tokenizer'):
        IDCMetric(tokenizer='rs', java=False)


def test_rs_ids_vocabulary_from_the_training_captions(tmp_path):
    from tests.helpers.pair_trees import make_my_pairs_tree
    make_my_pairs_tree(str(tmp_path), {'train': 4})
    metric = IDCMetric(
        tokenizer='rs_ids', java=False, min_word_freq=2, word_freq_rule='>',
        vocab_datasets=dict(type='ImagePairDataset', data_root=str(tmp_path),
                            ann_file='train.jsonl'),
        out_file_prefix=None)
    records = [record('1', 'the red ball has moved',
                      ['the red ball has moved', 'a red ball changed its '
                       'place'], 'move')]
    scores = metric.compute_metrics([dict(r) for r in records])
    # each colour is in two training captions (not more than 2): <UNK>
    ids = metric.scorer.vocab.word_to_id
    assert 'red' not in ids and 'ball' in ids
    assert metric.scorer.vocab.encode('the red ball') == \
        f"{ids['the']} 1 {ids['ball']}"
    assert scores['Bleu_1'] == pytest.approx(100.)
