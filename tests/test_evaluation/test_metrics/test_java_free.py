"""Caption scoring and captioner training without a Java runtime.

The Python tokenizer is compared with coco-caption's PTB tokenizer (Java,
where the machine has it) on the synthetic generator's captions and on
sentences that exercise PTB's rules; scores from both must be equal on
CLEVR-Change-style text. Missing Java is simulated with ``MMIDC_JAVA``
pointing at a file that does not exist.
"""
import json
import os.path as osp

import pytest
from mmengine.config import Config

from mmidc.evaluation import IDCMetric
from mmidc.evaluation.metrics.caption_scorer import (JAVA_FREE_METRICS,
                                                     CaptionScorer)
from mmidc.synthetic.generator import generate_scene
from mmidc.text.ptb_tokenizer import PythonPTBTokenizer
from mmidc.evaluation.metrics.java import find_java
from tests.helpers import REPO, load_tool
from tests.helpers.idc_pairs import PAIRS, PTB_CASES, data_samples
from tests.helpers.tiny_run import captioner_config, train_main, write_tiny_config

needs_java = pytest.mark.skipif(find_java() is None,
                                reason='no Java runtime to compare with')


@pytest.fixture(scope='module')
def synthetic_captions():
    """Change and no-change captions of 12 synthetic scenes."""
    captions = []
    for index in range(12):
        _, change, no_change, _ = generate_scene(index, seed=0, width=96, height=64)
        captions += change + no_change
    return captions


@needs_java
def test_python_tokenizer_equals_ptb(synthetic_captions):
    from mmidc.evaluation.metrics.coco_caption_java import JavaPTBTokenizer
    sentences = synthetic_captions + list(PTB_CASES)
    captions = {i: [{'caption': s}] for i, s in enumerate(sentences)}
    ptb = JavaPTBTokenizer(find_java()).tokenize(captions)
    python = PythonPTBTokenizer().tokenize(captions)
    assert python == ptb


@needs_java
def test_same_scores_as_ptb_on_clevr_style_text():
    records = [dict(pair_id=pid, change_type=ctype, prediction=pred,
                    references=refs) for pid, ctype, pred, refs in PAIRS]
    metrics = ('Bleu', 'ROUGE_L', 'CIDEr')
    ptb = CaptionScorer(metrics, tokenizer='ptb').score(records)
    python = CaptionScorer(metrics, tokenizer='python').score(records)
    assert python == ptb


@pytest.mark.parametrize('options', [dict(metrics=JAVA_FREE_METRICS),
                                     dict(java=False)])
def test_java_free_metrics_need_no_java(tmp_path, monkeypatch, options):
    monkeypatch.setenv('MMIDC_JAVA', str(tmp_path / 'no_java' / 'java'))
    metric = IDCMetric(out_file_prefix=None, **options)
    assert metric.scorer.tokenizer == 'python' and metric.scorer.java is None
    assert metric.scorer.metrics == JAVA_FREE_METRICS
    metric.process(None, data_samples())
    scores = metric.compute_metrics(metric.results)
    assert {'Bleu_4', 'ROUGE_L', 'CIDEr', 'color/CIDEr'} <= set(scores)
    assert 'METEOR' not in scores
    with pytest.raises(RuntimeError, match='PTB tokenizer'):
        CaptionScorer(JAVA_FREE_METRICS, tokenizer='ptb')
    with pytest.raises(ValueError, match='java=False'):
        CaptionScorer(('CIDEr', 'METEOR'), java=False)


def test_meteor_without_java_names_the_way_out(tmp_path, monkeypatch):
    missing = str(tmp_path / 'no_java' / 'java')
    monkeypatch.setenv('MMIDC_JAVA', missing)
    with pytest.raises(RuntimeError) as err:
        IDCMetric()  # the default metrics include METEOR
    message = str(err.value)
    assert missing in message and 'apt-get install' in message
    assert 'val_evaluator.java=False' in message and 'docs/evaluation.md' in message
    assert 'val_evaluator.0.java=False' in message
    with pytest.raises(ValueError, match='tokenizer'):
        CaptionScorer(tokenizer='nltk')


NO_BEST = "default_hooks = dict(checkpoint=dict(save_best=None))\n"


def test_captioner_trains_without_java(tmp_path, monkeypatch):
    """tools/train.py with Java-free validation scoring runs where no Java
    is; with METEOR it stops at start-up, naming the way out, and trains
    with validation off (the command's main in this process; its command
    line as a subprocess: tests/test_tools/test_train_options.py)."""
    no_java = str(tmp_path / 'no_java' / 'java')
    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=NO_BEST + captioner_config(
        evaluator="dict(type='IDCMetric', java=False)"), name='java_free.py')
    work_dir = tmp_path / 'work'
    monkeypatch.setenv('MMIDC_JAVA', no_java)
    train_main(config, '--work-dir', str(work_dir))
    (log, ) = work_dir.rglob('*.log')
    assert 'Python PTB-like tokenizer' not in log.read_text()  # asked for, no warning
    (scores, ) = [json.loads(line) for path in work_dir.rglob('scalars.json')
                  for line in open(path) if 'CIDEr' in line]
    assert 0 <= scores['CIDEr'] and 'METEOR' not in scores

    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=NO_BEST + captioner_config(
        evaluator="dict(type='IDCMetric')"), name='with_meteor.py')
    with pytest.raises(RuntimeError, match='METEOR needs a Java runtime'):
        train_main(config, '--work-dir', str(tmp_path / 'work2'))
    assert not osp.exists(tmp_path / 'work2' / 'epoch_1.pth')
    # the same config with validation switched off (docs/evaluation.md)
    train_main(config, '--work-dir', str(tmp_path / 'work3'),
               '--cfg-options', 'val_cfg=None', 'val_dataloader=None',
               'val_evaluator=None')
    assert osp.exists(tmp_path / 'work3' / 'epoch_1.pth')


@needs_java
def test_tokenizer_difference_tool(tmp_path, capsys):
    """tools/analysis_tools/tokenizer_difference.py on a predictions file."""
    tool = load_tool('tools/analysis_tools/tokenizer_difference.py')
    records = [dict(pair_id=pid, change_type=ctype, prediction=pred, references=refs)
               for pid, ctype, pred, refs in PAIRS]
    predictions = tmp_path / 'predictions.json'
    predictions.write_text(json.dumps(records))
    out = tmp_path / 'rows.json'
    assert tool.main([str(predictions), '--out', str(out)]) == 0
    (result, ) = json.loads(out.read_text()).values()
    assert result['pairs'] == len(PAIRS)
    assert all(row['difference'] == 0 for row in result['rows'])
    assert 'largest absolute difference: 0.0000' in capsys.readouterr().out


@pytest.mark.parametrize('config, option', [
    ('configs/clip4idc/clip4idc-caption_vit-b32_clevr-change.py', 'val_evaluator.java'),
    ('projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py',
     'val_evaluator.0.java')])
def test_the_named_option_reaches_the_caption_metric(config, option):
    """The two forms the message names: a single evaluator, and a list of
    evaluators (the synthetic set's) indexed by position."""
    cfg = Config.fromfile(str(REPO / config))
    cfg.merge_from_dict({option: False})
    evaluators = cfg.val_evaluator
    if not isinstance(evaluators, (list, tuple)):
        evaluators = [evaluators]
    (metric, ) = [e for e in evaluators if e['type'] == 'IDCMetric']
    assert metric['java'] is False
