import json
import os
import os.path as osp

import pytest

from mmidc.datasets import SpotTheDiffDataset, spot_the_diff
from mmidc.evaluation.metrics import IDCMetric
from mmidc.evaluation.metrics.java import find_java
from mmidc.registry import DATASETS
from tests.helpers.pair_trees import make_spot_the_diff_tree

#: no pipeline; no serialisation (its gc.collect() costs ~1 s a build)
FAST = dict(pipeline=[], serialize_data=False)


def test_reads_pairs_and_drops_empty_sentences(spot_root, monkeypatch):
    logged = []
    monkeypatch.setattr(spot_the_diff, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    dataset = DATASETS.build(
        dict(type='SpotTheDiffDataset', data_root=spot_root, split='train',
             **FAST))
    out = '\n'.join(logged)
    # Three empty sentences dropped; pair 99 had nothing left: reported.
    assert 'dropped 3 empty sentences' in out
    assert 'dropped 1 pairs' in out and 'img_id 99' in out
    entries = [dataset.get_data_info(i) for i in range(len(dataset))]
    assert [e['pair_id'] for e in entries] == ['5406', '17']
    assert entries[0]['gt_captions'] == ['a car left', 'a man came']
    assert entries[0]['img1_path'] == osp.join(spot_root, 'resized_images',
                                               '5406.png')
    assert entries[0]['img2_path'] == osp.join(spot_root, 'resized_images',
                                               '5406_2.png')
    assert {e['change_type'] for e in entries} == {'unknown'}


@pytest.mark.parametrize('split, ids', [('val', ['21']), ('test', ['8'])])
def test_other_splits(spot_root, split, ids):
    dataset = SpotTheDiffDataset(spot_root, split=split, **FAST)
    assert [dataset.get_data_info(i)['pair_id']
            for i in range(len(dataset))] == ids


def test_wrong_split(spot_root):
    with pytest.raises(ValueError, match='"dev".*train, val, test'):
        SpotTheDiffDataset(spot_root, split='dev')


def test_missing_image_named(tmp_path):
    make_spot_the_diff_tree(str(tmp_path))
    os.remove(tmp_path / 'resized_images' / '8_2.png')
    with pytest.raises(FileNotFoundError, match='resized_images/8_2.png'):
        SpotTheDiffDataset(str(tmp_path), split='test')


# -- the real files' quirks, on excerpts of them (tests/data/spot_the_diff) --
REAL = osp.join(osp.dirname(osp.dirname(__file__)), 'data', 'spot_the_diff')


def _read_real(name):
    with open(osp.join(REAL, name)) as f:
        return json.load(f)


@pytest.fixture(scope='module')
def real_root(tmp_path_factory):
    """The excerpts of the real annotation files, placeholder images."""
    root = str(tmp_path_factory.mktemp('spot_the_diff_real'))
    records = {split: _read_real(f'annotations/{split}.json')
               for split in ('train', 'val', 'test')}
    make_spot_the_diff_tree(root, records=records)
    for split in records:  # written in the real files' exact form
        with open(osp.join(root, 'annotations', f'{split}.json')) as f, \
                open(osp.join(REAL, 'annotations', f'{split}.json')) as g:
            assert f.read() == g.read()
    return root


def _pairs(dataset):
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    return {info['pair_id']: info['gt_captions'] for info in infos}


def test_real_repeated_img_ids_are_one_pair(real_root):
    """10430 comes in three records (one per annotator): one pair, the
    sentences of all three its references, in file order."""
    pairs = _pairs(SpotTheDiffDataset(real_root, split='test', **FAST))
    assert len(pairs) == 34  # 44 records
    assert pairs['10430'] == ['the black van is not there anymore',
                              'there is a white box in the corner on the '
                              'left hand image',
                              'black van parked by blue car']
    train = _pairs(SpotTheDiffDataset(real_root, split='train', **FAST))
    assert train['126'] == [
        'there are now five vehicles on the street headed toward the camera',
        'the cars on the right side of the road have moved slightly',
        'more cars have appeared on the road', 'more cars in the street']


def test_real_string_ids_in_first_record_order(real_root):
    dataset = SpotTheDiffDataset(real_root, split='test', **FAST)
    ids = [dataset.get_data_info(i)['pair_id'] for i in range(len(dataset))]
    records = _read_real('annotations/test.json')
    assert ids == list(dict.fromkeys(r['img_id'] for r in records))
    assert ids[:3] == ['256', '294', '187']
    info = dataset.get_data_info(ids.index('10430'))
    assert info['img2_path'] == osp.join(real_root, 'resized_images',
                                         '10430_2.png')


def test_real_references_equal_the_official_reference_file(real_root):
    """Every sentence of every record, "" included: the authors' COCO
    reference file (ddla_rerun_gtfile.json) pair for pair."""
    official = {}
    for ann in _read_real('ddla_rerun_gtfile.json')['annotations']:
        official.setdefault(ann['image_id'], []).append(ann['caption'])
    pairs = _pairs(SpotTheDiffDataset(real_root, split='test', **FAST))
    assert pairs == official
    assert list(pairs) == list(official)
    assert sum(map(len, pairs.values())) == 61


def test_real_test_pair_whose_only_reference_is_empty(real_root):
    pairs = _pairs(SpotTheDiffDataset(real_root, split='test', **FAST))
    only_empty = [pid for pid, refs in pairs.items() if refs == ['']]
    assert only_empty == ['9420', '8682', '8693', '10644', '12201', '12326',
                          '12187']


def test_real_val_keeps_empty_sentences(real_root):
    """13426: a [""] record and two with sentences; 8069: only [""]."""
    pairs = _pairs(SpotTheDiffDataset(real_root, split='val', **FAST))
    assert pairs['8069'] == ['']
    assert pairs['13426'][0] == '' and len(pairs['13426']) == 6


def test_real_train_drops_empty_sentences(real_root, monkeypatch):
    logged = []
    monkeypatch.setattr(spot_the_diff, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    pairs = _pairs(SpotTheDiffDataset(real_root, split='train', **FAST))
    assert list(pairs) == ['126', '9664']  # 3 had only ""
    assert pairs['9664'] == ['there is no difference no people cars etc']
    out = '\n'.join(logged)
    assert 'train.json: 5 records -> 3 pairs, 7 sentences (the 3 records ' \
        'of the 1 img_ids listed more than once are merged' in out
    assert 'dropped 2 empty sentences' in out
    assert 'dropped 1 pairs with no non-empty sentence: img_id 3' in out


def test_real_merge_and_kept_empty_sentences_logged(real_root, monkeypatch):
    logged = []
    monkeypatch.setattr(spot_the_diff, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    SpotTheDiffDataset(real_root, split='test', **FAST)
    out = '\n'.join(logged)
    assert 'test.json: 44 records -> 34 pairs, 61 sentences (the 15 ' \
        'records of the 5 img_ids listed more than once are merged' in out
    assert 'kept 7 empty sentences' in out
    assert '7 pairs have only empty references' in out
    assert 'img_id 9420, 8682, 8693, 10644, 12201, 12326, 12187' in out


def test_keep_empty_sentences_option(real_root):
    test = _pairs(SpotTheDiffDataset(real_root, split='test',
                                     keep_empty_sentences=False, **FAST))
    assert len(test) == 27 and '9420' not in test
    train = _pairs(SpotTheDiffDataset(real_root, split='train',
                                      keep_empty_sentences=True, **FAST))
    assert train['3'] == ['']
    assert train['9664'] == ['there is no difference no people cars etc', '']


def test_keep_empty_sentences_must_be_a_bool(spot_root):
    with pytest.raises(ValueError, match='keep_empty_sentences must be'):
        SpotTheDiffDataset(spot_root, split='test', keep_empty_sentences=1)


@pytest.mark.skipif(find_java() is None, reason='needs a Java runtime')
def test_real_scores_equal_pycocoevalcap_on_the_official_files(real_root):
    """IDCMetric on the reader's test references equals pycocoevalcap run
    directly (as the data set's own check_predictions.ipynb and CLIP4IDC
    run it) on the official reference file and the authors' predictions,
    the 7 pairs with only "" included. METEOR is left out here (its JVM
    takes seconds); docs/evaluation.md records the whole-file check."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    from pycocotools.coco import COCO

    coco = COCO(osp.join(REAL, 'ddla_rerun_gtfile.json'))
    res = coco.loadRes(osp.join(REAL, 'ddla_rerun_predfile.json'))
    ids = res.getImgIds()
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({i: coco.imgToAnns[i] for i in ids})
    preds = tokenizer.tokenize({i: res.imgToAnns[i] for i in ids})
    bleu, _ = Bleu(4).compute_score(gts, preds, verbose=0)
    direct = {f'Bleu_{n}': v * 100 for n, v in enumerate(bleu, start=1)}
    direct['ROUGE_L'] = Rouge().compute_score(gts, preds)[0] * 100
    direct['CIDEr'] = Cider().compute_score(gts, preds)[0] * 100

    predicted = {p['image_id']: p['caption']
                 for p in _read_real('ddla_rerun_predfile.json')}
    dataset = SpotTheDiffDataset(real_root, split='test', **FAST)
    metric = IDCMetric(metrics=('Bleu', 'ROUGE_L', 'CIDEr'), tokenizer='ptb',
                       per_type=False, out_file_prefix=None)
    metric.process(None, [
        dict(pair_id=info['pair_id'], gt_captions=info['gt_captions'],
             change_type=info['change_type'],
             pred_caption=predicted[info['pair_id']])
        for info in map(dataset.get_data_info, range(len(dataset)))])
    scores = metric.compute_metrics(metric.results)
    assert {k: scores[k] for k in direct} == direct  # exact
    assert direct['CIDEr'] > 0
