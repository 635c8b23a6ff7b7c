"""Bad metric inputs and stuck Java processes: a clear error or a defined
result, never misaligned scores, a hang or a bare ``max()`` /
``ZeroDivisionError``.

Cases: line separators inside captions (they split a sentence in two for the
Java PTB tokenizer, shifting every later sentence), references without
words, an empty prediction list (with and without Java), a hanging Java
binary (tokenizer and METEOR timeouts), and CaptionTruthMetric on a data
root without scene graphs (an error when it is built, not after an epoch).
"""
import json
import logging
import os

import pytest

from mmidc.evaluation import IDCMetric
from mmidc.evaluation.metrics import CaptionTruthMetric, caption_scorer
from mmidc.evaluation.metrics.caption_scorer import CaptionScorer
from mmidc.evaluation.metrics.coco_caption_java import JavaPTBTokenizer
from mmidc.evaluation.metrics.java import find_java
from tests.helpers import load_tool

needs_java = pytest.mark.skipif(find_java() is None,
                                reason='needs a Java runtime')

#: Every character Python ends a line at (also what Java does).
LINE_BREAKS = ('\n', '\r', '\r\n', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e',
               '\x85', '\u2028', '\u2029')


def fake_java(tmp_path, body, name='java'):
    path = tmp_path / name
    path.write_text('#!/bin/sh\n' + body + '\n')
    os.chmod(path, 0o755)
    return str(path)


def _perfect_pairs_with_breaks():
    """Pairs whose prediction equals a reference up to a line break, and
    references with breaks too: every pair scores 100."""
    records = []
    for k, brk in enumerate(LINE_BREAKS):
        records.append(dict(pair_id=f'p{k}', change_type='unknown',
                            prediction=f'the cube{brk}number {k} moved',
                            references=[f'the cube number {k} moved',
                                        f'a ball{brk}{k} was added']))
    records.append(dict(pair_id='last', change_type='unknown',
                        prediction='a red sphere has been added',
                        references=['a red sphere has been added']))
    return records


# -- line separators ---------------------------------------------------------
@needs_java
def test_line_breaks_do_not_misalign_the_ptb_tokenizer():
    records = _perfect_pairs_with_breaks()
    scorer = CaptionScorer(metrics=('Bleu', ), tokenizer='ptb')
    gts, res = scorer.tokenize(records)
    for k, _ in enumerate(LINE_BREAKS):
        assert res[f'p{k}'] == [f'the cube number {k} moved']
        assert gts[f'p{k}'] == [f'the cube number {k} moved',
                                f'a ball {k} was added']
    assert res['last'] == gts['last'] == ['a red sphere has been added']
    assert scorer.score(records, per_type=False)['Bleu_1'] == \
        pytest.approx(100)


def test_line_breaks_with_the_python_tokenizer():
    records = _perfect_pairs_with_breaks()
    scores = CaptionScorer(java=False).score(records, per_type=False)
    assert scores['Bleu_1'] == pytest.approx(100)


def test_a_tokenizer_line_count_mismatch_is_an_error(tmp_path):
    # a "tokenizer" that answers with one line too many
    java = fake_java(tmp_path, 'for a; do f=$a; done\ncat "$f"\n'
                     "printf '\\nextra'")
    captions = {'a': [{'caption': 'the cube moved'}],
                'b': [{'caption': 'a ball was added'}]}
    with pytest.raises(RuntimeError, match='returned 3 lines for 2 sentences'):
        JavaPTBTokenizer(java).tokenize(captions)


# -- references without words, no predictions -------------------------------
def _records(references):
    return [dict(pair_id='a', change_type='move', prediction='the cube moved',
                 references=references),
            dict(pair_id='b', change_type='add', prediction='a ball appeared',
                 references=['a ball was added'])]


SCORERS = [pytest.param(dict(java=False), id='python'),
           pytest.param(dict(metrics=('Bleu', 'CIDEr'), tokenizer='ptb'),
                        id='ptb', marks=needs_java)]


def _coco_scores(references):
    """pycocoevalcap's BLEU and CIDEr-D on ``_records(references)``, with
    the words each reference keeps after tokenisation (x100)."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    gts = {'a': references, 'b': ['a ball was added']}
    res = {'a': ['the cube moved'], 'b': ['a ball appeared']}
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    cider, _ = Cider().compute_score(gts, res)
    return dict(Bleu_4=bleu[3] * 100, CIDEr=cider * 100)


@pytest.mark.parametrize('options', SCORERS)
@pytest.mark.parametrize('references', [[''], ['.'], ['', ' ...', '!']])
def test_a_pair_without_a_reference_with_words(options, references,
                                               monkeypatch):
    """Scored as coco-caption scores it (Spot-the-Diff's official test
    references have 7 such pairs): it matches nothing, yet counts in the
    corpus (BLEU's lengths, CIDEr-D's document frequencies)."""
    logged = []
    monkeypatch.setattr(caption_scorer, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    scorer = CaptionScorer(**options)
    scores = scorer.score(_records(references), source='preds.json')
    expected = _coco_scores([''] * len(references))
    assert {k: scores[k] for k in expected} == expected
    assert ("preds.json: 1 pairs have only references that are empty or "
            "punctuation only, scored as coco-caption scores them (they "
            "match nothing; pairs 'a')") in logged


def test_references_without_words_are_kept(monkeypatch):
    """As in coco-caption: an empty reference lowers CIDEr-D's mean over a
    pair's references."""
    scorer = CaptionScorer(java=False)
    logged = []
    monkeypatch.setattr(caption_scorer, 'print_log',
                        lambda msg, **kwargs: logged.append((msg, kwargs)))
    scores = scorer.score(_records(['.', 'the cube moved', '']))
    expected = _coco_scores(['', 'the cube moved', ''])
    assert {k: scores[k] for k in expected} == expected
    assert scores['CIDEr'] != scorer.score(_records(['the cube moved']))[
        'CIDEr']
    assert ("records: 1 pairs have references that are empty or punctuation "
            "only, scored as coco-caption scores them (they match nothing; "
            "pairs 'a')", dict(logger='current',
                               level=logging.WARNING)) in logged


def test_an_empty_prediction_is_scored():
    records = [dict(pair_id='a', prediction='', references=['a cube moved'])]
    scores = CaptionScorer(java=False).score(records, per_type=False)
    assert scores['Bleu_1'] == 0 and scores['CIDEr'] == 0


@pytest.mark.parametrize('options', [
    pytest.param(dict(java=False), id='python'),
    pytest.param(dict(), id='java', marks=needs_java)])
def test_an_empty_prediction_list(options):
    metric = IDCMetric(out_file_prefix=None, **options)
    with pytest.raises(ValueError, match='IDCMetric: no predictions to score'):
        metric.compute_metrics([])


def _scene_root(tmp_path):
    (tmp_path / 'scenes').mkdir(exist_ok=True)
    (tmp_path / 'scenes' / 'CLEVR_default_000000.json').write_text('{}')
    return str(tmp_path)


def test_caption_truth_with_no_predictions(tmp_path):
    metric = CaptionTruthMetric(data_root=_scene_root(tmp_path))
    with pytest.raises(ValueError, match='no predictions to grade'):
        metric.compute_metrics([])


# -- a hanging Java binary -----------------------------------------------------
def test_a_hanging_tokenizer_is_killed(tmp_path):
    pid_file = tmp_path / 'pid'
    java = fake_java(tmp_path, f'echo $$ > {pid_file}\nexec sleep 600')
    metric = IDCMetric(java=java, metrics=('Bleu', ), tokenizer='ptb',
                       tokenizer_timeout=1, out_file_prefix=None)
    metric.results = [dict(pair_id='a', prediction='a cube moved',
                           references=['the cube moved'])]
    with pytest.raises(RuntimeError, match='PTB tokenizer .* did not finish '
                       'within 1s and was killed'):
        metric.compute_metrics(metric.results)
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(int(pid_file.read_text()), 0)


@needs_java
def test_a_hanging_meteor_is_killed(tmp_path):
    # the real Java for the tokenizer, a stuck one for METEOR
    java = fake_java(tmp_path, 'case "$*" in\n'
                     f'  *PTBTokenizer*) exec {find_java()} "$@";;\n'
                     '  *) exec sleep 600;;\nesac')
    metric = IDCMetric(java=java, metrics=('METEOR', ), tokenizer='ptb',
                       meteor_timeout=1, out_file_prefix=None)
    metric.results = [dict(pair_id='a', prediction='a cube moved',
                           references=['the cube moved'])]
    with pytest.raises(RuntimeError, match='METEOR failed .no answer for 1s'):
        metric.compute_metrics(metric.results)


def test_the_eval_tool_takes_a_java_timeout(tmp_path):
    java = fake_java(tmp_path, 'exec sleep 600')
    predictions = tmp_path / 'predictions.json'
    predictions.write_text(json.dumps([dict(
        pair_id='a', prediction='a cube moved', references=['a cube moved'],
        change_type='move')]))
    tool = load_tool('tools/analysis_tools/eval_captions.py')
    with pytest.raises(RuntimeError, match='within 1.0s'):
        tool.main([str(predictions), '--java', java, '--tokenizer', 'ptb',
                   '--metrics', 'Bleu', '--java-timeout', '1'])


def test_the_eval_tool_names_a_bad_predictions_file(tmp_path):
    tool = load_tool('tools/analysis_tools/eval_captions.py')
    predictions = tmp_path / 'predictions.json'
    predictions.write_bytes(json.dumps([dict(
        pair_id='a', prediction='caf\u00e9', references=['a cube moved'])],
        ensure_ascii=False).encode('latin-1'))
    with pytest.raises(ValueError, match='predictions.json: not UTF-8'):
        tool.main([str(predictions), '--metrics', 'CIDEr'])
    predictions.write_text('[{"pair_id": "a",')
    with pytest.raises(ValueError, match='predictions.json: not valid JSON'):
        tool.main([str(predictions), '--metrics', 'CIDEr'])


@pytest.mark.parametrize('option', ['tokenizer_timeout', 'meteor_timeout'])
@pytest.mark.parametrize('value', [0, -5, 'abc', None])
def test_timeouts_must_be_positive(option, value):
    with pytest.raises(ValueError, match=f'{option} must be a positive'):
        IDCMetric(java=False, **{option: value})


# -- CaptionTruthMetric without scene graphs -----------------------------------
def test_caption_truth_needs_scene_graphs_when_built(tmp_path):
    with pytest.raises(FileNotFoundError,
                       match=f'no scene graphs in {tmp_path}/scenes'):
        CaptionTruthMetric(data_root=str(tmp_path))
    (tmp_path / 'scenes').mkdir()  # an empty folder is no better
    with pytest.raises(FileNotFoundError, match='synthetic generator'):
        CaptionTruthMetric(data_root=str(tmp_path))
    assert CaptionTruthMetric(data_root=_scene_root(tmp_path)).data_root == \
        str(tmp_path)
