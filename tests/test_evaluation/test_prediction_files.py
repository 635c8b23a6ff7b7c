"""Prediction and reference files of other code bases, in their real forms
(tests/data: Spot-the-Diff's coco-caption results and references, a
Dubai-CC annotation excerpt; RSICC's eval_results and caption_pair.py's
JSON Lines written as they are), scored by eval_captions.py."""
import json
import os.path as osp
import re

import pytest
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

from mmidc.evaluation.metrics.java import find_java
from mmidc.evaluation.prediction_files import (match_records, pair_key,
                                               read_metric_records,
                                               read_predictions,
                                               read_references)
from tests.helpers import load_tool
from tests.helpers.rs_trees import real_excerpt

DATA = osp.join(osp.dirname(osp.dirname(__file__)), 'data')
STD_PRED = osp.join(DATA, 'spot_the_diff', 'ddla_rerun_predfile.json')
STD_GT = osp.join(DATA, 'spot_the_diff', 'ddla_rerun_gtfile.json')
METRICS = ['--metrics', 'Bleu', 'ROUGE_L', 'CIDEr']


def tool():
    return load_tool('tools/analysis_tools/eval_captions.py')


def test_ids_match_without_an_image_extension():
    assert pair_key('test_000001.png') == 'test_000001'
    assert pair_key(256) == '256' and pair_key('0x0.tif') == '0x0'
    assert pair_key('a.b') == 'a.b'  # not an image extension


@pytest.mark.skipif(find_java() is None, reason='the PTB tokenizer needs Java')
def test_coco_caption_files_score_as_pycocoevalcap_scores_them():
    """Spot-the-Diff's official DDLA results and references (an excerpt of
    34 pairs in their exact form, 7 with only an empty reference), scored
    by pycocoevalcap directly as the authors' notebook does."""
    gt = json.load(open(STD_GT))
    pred = json.load(open(STD_PRED))
    gts, res = {}, {}
    for ann in gt['annotations']:
        gts.setdefault(ann['image_id'], []).append(ann)
    for r in pred:
        res[r['image_id']] = [r]
    tokenizer = PTBTokenizer()
    gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
    expected = {f'Bleu_{n}': 100 * v for n, v in enumerate(
        Bleu(4).compute_score(gts, res, verbose=0)[0], start=1)}
    expected['ROUGE_L'] = 100 * Rouge().compute_score(gts, res)[0]
    expected['CIDEr'] = 100 * Cider().compute_score(gts, res)[0]
    scores = tool().main([STD_PRED, '--references', STD_GT,
                          '--tokenizer', 'ptb', *METRICS])
    assert len(pred) == 34
    for key, value in expected.items():
        assert scores[key] == pytest.approx(value, abs=1e-9), key


def test_formats_are_detected_and_ids_matched(tmp_path, capsys):
    """RSICC / Chg2Cap's {id: [caption]} (eval_results/*.json's form, a
    space before the end), caption_pair.py's JSON Lines and coco-caption
    results give the same scores on Dubai-CC references read from a
    Karpathy file (a real excerpt, one split of it)."""
    excerpt = real_excerpt('dubai_cc_excerpt.json')
    test_file = tmp_path / 'Test_Dubai_CC.json'
    test_file.write_text(json.dumps(
        excerpt['description_jsontr_te_val/Test_Dubai_CC.json']))
    refs = read_references(str(test_file), split='test',
                           no_change='levir_cc')
    assert list(refs) == ['0x0', '6x35', '7x37', '18x41']
    captions = {'0x0': 'nothing has changed ',
                '6x35': 'a road is built', '7x37': 'many buildings appear',
                '18x41': 'some villas are built'}
    rsicc = tmp_path / 'rsicc.json'
    rsicc.write_text(json.dumps({k: [v] for k, v in captions.items()}))
    jsonl = tmp_path / 'results.jsonl'
    jsonl.write_text(''.join(json.dumps(dict(
        pair_id=f'{k}.tif', img1=f'A/{k}.tif', img2=f'B/{k}.tif', caption=v,
        mode='greedy')) + '\n' for k, v in captions.items()) + json.dumps(
            dict(pair_id='9x9.tif', img1='A/9x9.tif', img2='B/9x9.tif',
                 error='unreadable image')) + '\n')
    coco = tmp_path / 'coco.json'
    coco.write_text(json.dumps([dict(image_id=k, caption=v, id=k)
                                for k, v in captions.items()]))
    expected = None
    for path, fmt in ((rsicc, 'rsicc'), (jsonl, 'jsonl'), (coco, 'coco')):
        assert read_predictions(str(path))[2] == fmt
        scores = tool().main([str(path), '--references', str(test_file),
                              '--tokenizer', 'rs_words', *METRICS])
        expected = expected or scores
        assert scores == expected, fmt
        assert f'({fmt}): 4 pairs' in capsys.readouterr().out
    # a missing prediction is an error naming it; an extra one is left out
    captions.pop('7x37')
    captions['1x1'] = 'extra'
    rsicc.write_text(json.dumps({k: [v] for k, v in captions.items()}))
    with pytest.raises(ValueError, match=r"rsicc.json: 1 of the 4 pairs of "
                       r".*Test_Dubai_CC.json have no prediction \('7x37'\)"):
        tool().main([str(rsicc), '--references', str(test_file), *METRICS])
    records, extra = match_records({**{k: 'x' for k in refs}, '1x1': 'y'},
                                   refs, 'p.json', 'r.json')
    assert extra == ['1x1'] and len(records) == 4


@pytest.mark.parametrize('name', ['test.jsonl', 'test.json'])
def test_an_own_pairs_annotation_file_as_references_points_to_config(tmp_path, name):
    # the user's own test split (ImagePairDataset's format) given as --references
    records = [dict(img1='before/1.png', img2='after/1.png', captions=['a car left']),
               dict(img1='before/2.png', img2='after/2.png', captions=['no change'])]
    path = tmp_path / name
    path.write_text('\n'.join(json.dumps(r) for r in records) if name.endswith('l')
                    else json.dumps(records))
    with pytest.raises(ValueError) as error:
        read_references(str(path))
    message = str(error.value)
    assert str(path) in message and '--config CONFIG --split test' in message
    assert 'not valid JSON' not in message


def test_references_from_a_config_need_no_images(tmp_path):
    """--config CONFIG --split test: the reader's references; rs_ids counts
    the captions of every split of the config."""
    from tests.helpers.pair_trees import write_records
    for split, thing in (('train', 'cube'), ('test', 'ball')):
        write_records(str(tmp_path / f'{split}.jsonl'), [dict(
            img1=f'before/{split}_{k}.png', img2=f'after/{split}_{k}.png',
            captions=[f'the {colour} {thing} has moved'])
            for k, colour in enumerate(('green', 'blue'))])
    config = tmp_path / 'config.py'
    config.write_text(''.join(
        f'{split}_dataloader = dict(dataset=dict(type="ImagePairDataset", '
        f'data_root={str(tmp_path)!r}, ann_file="{split}.jsonl"))\n'
        for split in ('train', 'test')))
    predictions = tmp_path / 'predictions.json'
    predictions.write_text(json.dumps({'0': ['the blue ball has moved'],
                                       '1': ['the green ball has moved']}))
    args = [str(predictions), '--config', str(config), '--split', 'test',
            *METRICS]
    scores = tool().main([*args, '--tokenizer', 'rs_ids',
                          '--min-word-freq', '1', '--word-freq-rule', '>'])
    rs_words = tool().main([*args, '--tokenizer', 'rs_words'])
    # 'green' and 'blue' are seen twice in the train and test captions
    # together (once in either): both in the vocabulary, told apart. A
    # vocabulary of one split would make both <UNK>, matching: Bleu_1 100.
    assert scores['Bleu_1'] == pytest.approx(80.) == rs_words['Bleu_1']
    # a vocabulary with no caption word is refused, naming the option
    with pytest.raises(SystemExit, match='no caption word.*min-word-freq'):
        tool().main([*args, '--tokenizer', 'rs_ids', '--min-word-freq',
                     '1000000', '--word-freq-rule', '>'])


def test_spot_the_diff_config_references_with_a_moved_data_root(tmp_path):
    """--config with --cfg-options data_root=...: the reader's merged
    references (several records of one img_id, a real excerpt) of the
    moved tree; the published predictions of those pairs match them."""
    import shutil
    root = tmp_path / 'std'
    shutil.copytree(osp.join(DATA, 'spot_the_diff', 'annotations'),
                    root / 'annotations')
    scores = tool().main([
        STD_PRED, '--config',
        'configs/clip4idc/clip4idc-caption_vit-b32_spot-the-diff.py',
        '--split', 'test', '--cfg-options', f'data_root={root}',
        '--tokenizer', 'python', '--metrics', 'Bleu', '--no-per-type'])
    same = tool().main([STD_PRED, '--references', STD_GT, '--tokenizer',
                        'python', '--metrics', 'Bleu', '--no-per-type'])
    assert scores == same



def test_hcfnet_whu_cdc_files_score_as_chg2cap_scores_them():
    """HCFNet's WHU-CDC predictions (CapRjson/WHU.json) and references
    (GTjson/whuCCcaptions.json), an excerpt of 6 test pairs in the files'
    exact form, under rs_ids: the words of each ``raw`` sentence as
    Chg2Cap's test.py reads them (``upper-left``, ``t-shaped`` one word;
    ``.`` dropped), scored by pycocoevalcap directly, per change flag."""
    folder = osp.join(DATA, 'whu_cdc_hcfnet')
    pred, refs = (osp.join(folder, n) for n in ('WHU.json',
                                                 'whuCCcaptions.json'))
    images = json.load(open(refs))['images']
    hyps = {r['filename']: r['sentence'] for r in json.load(open(pred))}

    def expected(field):
        out = {}
        for subset, flags in (('', (0, 1)), ('change/', (1, )),
                              ('no_change/', (0, ))):
            gts = {i['filename'][:-4]: [
                ' '.join(s['tokens']) if field == 'tokens'
                else s['raw'].replace(' .', '').strip()
                for s in i['sentences']]
                for i in images if i['changeflag'] in flags}
            res = {k: [hyps[k]] for k in gts}
            bleu = Bleu(4).compute_score(gts, res, verbose=0)[0]
            out.update({f'{subset}Bleu_{n}': 100 * v
                        for n, v in enumerate(bleu, start=1)})
            out[f'{subset}ROUGE_L'] = 100 * Rouge().compute_score(gts,
                                                                 res)[0]
            out[f'{subset}CIDEr'] = 100 * Cider().compute_score(gts, res)[0]
        return out

    scores = tool().main([pred, '--references', refs, '--tokenizer',
                          'rs_ids', '--vocab-ann-file', refs,
                          '--min-word-freq', '0', '--word-freq-rule', '>=',
                          *METRICS])
    raw, tokens = expected('raw'), expected('tokens')
    for key, value in raw.items():
        assert scores[key] == pytest.approx(value, abs=1e-9), key
    # the excerpt tells the two apart: the hyphenated words of the raw
    # sentences change ROUGE-L and CIDEr-D of the changed pairs
    assert abs(raw['change/CIDEr'] - tokens['change/CIDEr']) > 0.1
    assert abs(raw['change/ROUGE_L'] - tokens['change/ROUGE_L']) > 0.1


def test_metric_records_of_another_form_name_the_file_the_form_and_the_fix(tmp_path):
    """caption_pair.py's JSON Lines and coco-caption results are not
    IDCMetric's predictions (read by check_synthetic_captions.py and
    tokenizer_difference.py)."""
    keys = ('pair_id', 'change_type', 'prediction')
    good = tmp_path / 'predictions.json'
    good.write_text(json.dumps([dict(pair_id='0', change_type='none', prediction='a')]))
    assert read_metric_records(str(good), keys, 'FIX')[0]['prediction'] == 'a'
    jsonl = tmp_path / 'results.jsonl'
    jsonl.write_text('{"pair_id": "0", "caption": "a"}\n{"pair_id": "1", "caption": "b"}\n')
    coco = tmp_path / 'coco.json'
    coco.write_text(json.dumps([dict(image_id='000001.png', caption='a')]))
    for path in (jsonl, coco):
        with pytest.raises(ValueError, match=re.escape(str(path)) + '.*IDCMetric.*pair_id'
                           '.*prediction.*change_type.*; FIX$'):
            read_metric_records(str(path), keys, 'FIX')
