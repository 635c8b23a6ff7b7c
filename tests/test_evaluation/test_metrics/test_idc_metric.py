"""IDCMetric: parity with pycocoevalcap, per-type subsets, DDP dedup, Java.

One metric evaluation with METEOR is shared by the module (a METEOR JVM
takes several seconds to load its paraphrase table); the reference scores
come from one PTB tokenizer run over every pair (each sentence is tokenised
on its own line, so a subset's tokens are the same as in a run of its own)
and pycocoevalcap's METEOR shared with test_rs_protocols.py.
"""
import json

import pytest
from mmengine.logging import MMLogger
from mmpretrain.structures import DataSample
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

from mmidc.evaluation import IDCMetric
from mmidc.registry import METRICS
from tests.helpers.coco_reference import reference_meteor
from tests.helpers.idc_pairs import PAIRS, data_samples

SUBSET_TYPES = {
    'color': {'color'},
    'material': {'material'},
    'add': {'add'},
    'move': {'move'},
    'semantic': {'color', 'material', 'add', 'move'},
    'distractor': {'none'},
}


def ptb_tokenized(pairs):
    """(references, predictions) of ``pairs`` by pair id, tokenised by
    pycocoevalcap's PTBTokenizer as COCOEvalCap.evaluate does."""
    gts = {pid: [{'caption': r} for r in refs] for pid, _, _, refs in pairs}
    res = {pid: [{'caption': pred}] for pid, _, pred, _ in pairs}
    tokenizer = PTBTokenizer()
    return tokenizer.tokenize(gts), tokenizer.tokenize(res)


def coco_caption_scores(pairs, meteor, tokenized):
    """Scores as coco-caption's COCOEvalCap.evaluate computes them (x100),
    on the pairs' entries of ``tokenized`` (:func:`ptb_tokenized`)."""
    all_gts, all_res = tokenized
    gts = {pid: all_gts[pid] for pid, _, _, _ in pairs}
    res = {pid: all_res[pid] for pid, _, _, _ in pairs}
    scores = {}
    for scorer, names in ((Bleu(4), ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4']),
                          (meteor, ['METEOR']), (Rouge(), ['ROUGE_L']),
                          (Cider(), ['CIDEr'])):
        score, _ = scorer.compute_score(gts, res)
        score = score if isinstance(score, list) else [score]
        for name, value in zip(names, score):
            scores[name] = value * 100
    return scores


@pytest.fixture(scope='module')
def evaluated(tmp_path_factory):
    """(metric result, predictions file, direct scores per subset)."""
    # Start pycocoevalcap's own METEOR JVM now: it loads while the metric runs.
    meteor = reference_meteor()
    out_dir = tmp_path_factory.mktemp('work_dir')
    metric = METRICS.build(dict(type='IDCMetric', output_dir=str(out_dir)))
    metric.process(None, data_samples())
    result = metric.evaluate(size=len(PAIRS))
    tokenized = ptb_tokenized(PAIRS)
    direct = {'total': coco_caption_scores(PAIRS, meteor, tokenized)}
    for subset, types in SUBSET_TYPES.items():
        direct[subset] = coco_caption_scores(
            [p for p in PAIRS if p[1] in types], meteor, tokenized)
    files = list(out_dir.glob('predictions_*.json'))
    return result, files, direct


def test_total_equals_pycocoevalcap(evaluated):
    result, _, direct = evaluated
    for name, value in direct['total'].items():
        assert result[name] == value, name  # exact, not approximate


def test_per_type_subsets(evaluated):
    result, _, direct = evaluated
    for subset, scores in direct.items():
        if subset == 'total':
            continue
        for name, value in scores.items():
            assert result[f'{subset}/{name}'] == value, f'{subset}/{name}'
    # No 'drop' pair: no 'drop/...' key (not a zero). 'unknown' pairs are
    # in the total only.
    assert not any(k.startswith(('drop/', 'unknown/')) for k in result)
    assert list(result)[:7] == ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4',
                                'METEOR', 'ROUGE_L', 'CIDEr']
    # and S*m, the mean of BLEU-4, METEOR, ROUGE-L and CIDEr, per subset
    assert len(result) == 8 * (1 + len(SUBSET_TYPES))
    for prefix in [''] + [f'{subset}/' for subset in SUBSET_TYPES]:
        assert result[f'{prefix}S_m'] == pytest.approx(sum(
            result[prefix + m] for m in ('Bleu_4', 'METEOR', 'ROUGE_L',
                                         'CIDEr')) / 4)
    # Each subset's CIDEr uses its own idf, so it differs from the total.
    assert result['color/CIDEr'] != result['CIDEr']


def test_predictions_file(evaluated):
    _, files, _ = evaluated
    assert len(files) == 1
    saved = json.loads(files[0].read_text())
    assert [r['pair_id'] for r in saved] == [p[0] for p in PAIRS]
    assert saved[0] == dict(pair_id=PAIRS[0][0], prediction=PAIRS[0][2],
                            references=PAIRS[0][3], change_type='color')


def test_sampler_padding_dropped_by_evaluate(tmp_path):
    """BaseMetric.evaluate keeps the data set's size: the padding a
    distributed sampler adds (repeated samples at the end) is not scored."""
    metric = IDCMetric(metrics=('Bleu', 'CIDEr'), output_dir=str(tmp_path))
    samples = data_samples()
    metric.process(None, samples + samples[:4])
    padded = metric.evaluate(size=len(samples))
    unique = IDCMetric(metrics=('Bleu', 'CIDEr'), out_file_prefix=None)
    unique.process(None, samples)
    assert padded == unique.compute_metrics(unique.results)
    saved = json.loads(next(tmp_path.glob('*.json')).read_text())
    assert len(saved) == len(PAIRS)


def test_metric_subset_and_no_per_type():
    metric = IDCMetric(metrics=['CIDEr'], per_type=False, out_file_prefix=None)
    metric.process(None, data_samples())
    assert list(metric.compute_metrics(metric.results)) == ['CIDEr']


def test_missing_java_fails_at_construction(tmp_path):
    missing = str(tmp_path / 'no_such_dir' / 'java')
    with pytest.raises(RuntimeError, match='java') as err:
        IDCMetric(java=missing)
    assert missing in str(err.value) and 'apt-get install' in str(err.value)


def test_bad_options_and_samples():
    with pytest.raises(ValueError, match='SPICE'):
        IDCMetric(metrics=('CIDEr', 'SPICE'))
    metric = IDCMetric(metrics=['CIDEr'], out_file_prefix=None)
    with pytest.raises(KeyError, match='pred_caption'):
        metric.process(None, [dict(pair_id='a', gt_captions=['x'])])
    metric.process(None, [dict(pair_id='a', pred_caption='x',
                               gt_captions=[])])
    with pytest.raises(ValueError, match="'a'"):
        metric.compute_metrics(metric.results)


def test_predictions_default_to_run_log_dir(tmp_path):
    # A Runner creates an MMLogger whose log file is <work_dir>/<timestamp>/.
    log_file = tmp_path / 'work_dir' / '20250101_000000' / 'run.log'
    log_file.parent.mkdir(parents=True)
    MMLogger.get_instance('idc_metric_test_run', log_file=str(log_file))
    try:
        metric = IDCMetric(metrics=['CIDEr'])
        metric.process(None, [
            DataSample(metainfo=s) for s in data_samples()[:3]
        ])  # DataSample objects work too
        metric.compute_metrics(metric.results)
        (saved, ) = log_file.parent.glob('predictions_*.json')
        assert len(json.loads(saved.read_text())) == 3
    finally:
        # Leave a logger without a file handler as the current one.
        MMLogger.get_instance('idc_metric_test_after')
