"""The score table flags subsets too small for CIDEr-D's idf."""
import logging

from mmengine.logging import MMLogger

from mmidc.evaluation import IDCMetric
from mmidc.evaluation.metrics.caption_scorer import (MIN_CIDER_PAIRS,
                                                     format_score_table)
from tests.helpers.idc_pairs import data_samples

SCORES = {'CIDEr': 120.0, 'Bleu_4': 40.0, 'color/CIDEr': 172.9,
          'color/Bleu_4': 30.0, 'distractor/CIDEr': 90.0,
          'distractor/Bleu_4': 70.0}


def test_small_subsets_are_starred_with_a_note():
    table = format_score_table(SCORES, {'total': MIN_CIDER_PAIRS,
                                        'color': 5,
                                        'distractor': MIN_CIDER_PAIRS - 1})
    rows = {line.split()[0]: line.split() for line in table.splitlines()}
    assert rows['total'][1] == str(MIN_CIDER_PAIRS)  # at the threshold: ok
    assert rows['color'][1] == '5*'
    assert rows['distractor'][1] == f'{MIN_CIDER_PAIRS - 1}*'
    note = table.splitlines()[-1]
    assert note.startswith(f'* fewer than {MIN_CIDER_PAIRS} pairs')
    assert 'CIDEr' in note


def test_large_subsets_or_no_cider_get_no_note():
    counts = {'total': 600, 'color': 59, 'distractor': 300}
    assert '*' not in format_score_table(SCORES, counts)
    no_cider = {k: v for k, v in SCORES.items() if 'CIDEr' not in k}
    assert '*' not in format_score_table(no_cider, {'total': 3, 'color': 1,
                                                    'distractor': 2})
    assert '*' not in format_score_table(SCORES)  # no counts: no column


def test_metric_warns_and_prints_the_note(monkeypatch):
    logged = []
    logger = MMLogger.get_current_instance()
    original = logger.log

    def log(level, msg, *args, **kwargs):
        logged.append((level, msg))
        return original(level, msg, *args, **kwargs)
    monkeypatch.setattr(logger, 'log', log)
    metric = IDCMetric(java=False, out_file_prefix=None)
    metric.process(None, data_samples())  # 13 pairs
    metric.compute_metrics(metric.results)
    warnings = [m for level, m in logged if level == logging.WARNING]
    assert any('fewer than' in m and 'total' in m and 'color' in m
               for m in warnings)
    table = next(m for _, m in logged if m.startswith('Captioning scores'))
    assert '13*' in table and f'* fewer than {MIN_CIDER_PAIRS}' in table


def test_note_says_identical_references_score_zero():
    """A subset whose references are all one sentence scores CIDEr-D 0 for
    perfect captions (idf 0), and the note under the table says so."""
    from mmidc.evaluation.metrics.caption_scorer import (CaptionScorer,
                                                         small_cider_note)
    records = [dict(pair_id=i, prediction='the scene remains the same',
                    references=['the scene remains the same'])
               for i in range(6)]
    scores = CaptionScorer(java=False, metrics=('CIDEr', )).score(
        records, per_type=False)
    assert scores['CIDEr'] == 0.0
    note = small_cider_note()
    assert 'same references' in note and '0.00' in note
    assert 'perfect' in note
