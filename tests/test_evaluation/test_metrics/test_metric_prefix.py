"""mmidc's metrics need no prefix: MMEngine's "The prefix is not set"
warning is not logged, and the result keys stay the documented ones unless a
prefix is asked for."""
import mmengine.evaluator.metric as base_metric
import pytest

from mmidc.evaluation import IDCMetric, RetrievalMetric
from tests.test_evaluation.test_metrics.test_retrieval_metric import \
    make_samples


@pytest.fixture
def logged(monkeypatch):
    seen = []
    monkeypatch.setattr(base_metric, 'print_log',
                        lambda msg, *args, **kwargs: seen.append(msg))
    return seen


@pytest.mark.parametrize('build', [
    lambda: RetrievalMetric(),
    lambda: IDCMetric(java=False, metrics=('Bleu', 'ROUGE_L', 'CIDEr')),
])
def test_no_prefix_warning(logged, build):
    metric = build()
    assert metric.prefix == ''
    assert not any('prefix is not set' in str(m) for m in logged)


def test_keys_unprefixed_unless_asked():
    samples = make_samples(num_pairs=8)
    plain = RetrievalMetric()
    plain.process(None, samples)
    keys = set(plain.evaluate(size=len(samples)))
    assert 'rsum' in keys and 'p2t/R@1' in keys
    named = RetrievalMetric(prefix='val')
    named.process(None, samples)
    assert set(named.evaluate(size=len(samples))) == {
        f'val/{k}' for k in keys}
