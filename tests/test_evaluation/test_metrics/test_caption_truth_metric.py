"""CaptionTruthMetric: hand-made captions against generated scene graphs,
and the same numbers from tools/analysis_tools/check_synthetic_captions.py."""
import json
import re
from collections import defaultdict

import pytest
from mmpretrain.structures import DataSample

from mmidc.synthetic import generate_dataset
from mmidc.synthetic.properties import CHANGE_TEMPLATES, COLORS
from mmidc.registry import METRICS
from tests.helpers import load_tool

NUM_SCENES = 18  # seed 54: 3-5 scenes of each change type
TYPES = ('color', 'material', 'add', 'drop', 'move')


def _ref_of(caption):
    """The referring expression of a reference caption."""
    for templates in CHANGE_TEMPLATES.values():
        for template in templates:
            pattern = re.escape(template).replace(
                re.escape('{article}'), '(?:a|an|the)').replace(
                    re.escape('{ref}'), '(.+)').replace(
                        re.escape('{value}'), r'\w+')
            match = re.fullmatch(pattern, caption)
            if match:
                return match.group(1)
    raise AssertionError(f'no form: {caption}')


def _other_object(scene):
    change = scene['change']
    obj = next(o for o in scene['images']['default']['objects']
               if o['id'] != change['object_id'])
    return f'{obj["size"]} {obj["color"]} {obj["material"]} {obj["shape"]}'


def _prediction(variant, scene, reference):
    """A caption of the variant and what it gets right (the hand table:
    true, right type, right object, right value; None where a check does
    not exist)."""
    change = scene['change']
    kind, ref = change['type'], _ref_of(reference)
    has_value = kind in ('color', 'material')
    value = None if not has_value else True
    if variant == 'true':
        return reference, (True, True, True, value)
    if variant == 'wrong type':  # a drop sentence (add for a drop change)
        caption = (f'a {ref} has been added' if kind == 'drop'
                   else f'the {ref} is missing')
        return caption, (False, False, True, None if not has_value else False)
    if variant == 'wrong object':  # another object, the right form
        other = _other_object(scene)
        caption = {'color': f'the {other} changed to {change.get("to")}',
                   'material': f'the {other} turned {change.get("to")}',
                   'add': f'a {other} has appeared',
                   'drop': f'the {other} has disappeared',
                   'move': f'the {other} moved'}[kind]
        return caption, (False, True, False, value)
    assert variant == 'wrong value' and has_value
    wrong = (change['from'] if kind == 'material' else
             next(c for c in COLORS if c != change['to']))
    return f'the {ref} became {wrong}', (False, True, True, False)


@pytest.fixture(scope='module')
def predictions(tmp_path_factory):
    """Records of every variant, their hand verdicts, the data root and a
    predictions file as IDCMetric writes it."""
    root = str(tmp_path_factory.mktemp('synthetic'))
    generate_dataset(root, NUM_SCENES, seed=54, image_size=(48, 32),
                     progress=False)
    with open(f'{root}/change_captions.json') as f:
        captions = json.load(f)
    records, expected = [], {}
    turn = defaultdict(int)
    for index in range(NUM_SCENES):
        with open(f'{root}/scenes/CLEVR_default_{index:06d}.json') as f:
            scene = json.load(f)
        kind = scene['change']['type']
        variants = ['true', 'wrong type', 'wrong object'] + (
            ['wrong value'] if kind in ('color', 'material') else [])
        variant = variants[turn[kind] % len(variants)]
        turn[kind] += 1
        reference = captions[scene['image_filename']][0]
        caption, verdict = _prediction(variant, scene, reference)
        pair_id = f'{index:06d}.png'
        records.append(dict(pair_id=pair_id, prediction=caption,
                            references=[reference], change_type=kind))
        expected[pair_id] = verdict
        # the distractor: right on even scenes, a change sentence otherwise
        right = index % 2 == 0
        records.append(dict(
            pair_id=f'{pair_id}_n',
            prediction='there is no change' if right else 'the cube moved',
            references=['nothing has changed'], change_type='none'))
        expected[f'{pair_id}_n'] = (right, right, None, None)
    path = tmp_path_factory.mktemp('preds') / 'predictions.json'
    path.write_text(json.dumps(records))
    return records, expected, root, str(path)


def _hand_scores(records, expected):
    """The shares the metric must report, counted from the hand table."""
    subsets = {'total': [r['pair_id'] for r in records]}
    for r in records:
        kind = r['change_type']
        subsets.setdefault(kind, []).append(r['pair_id'])
        group = 'distractor' if kind == 'none' else 'semantic'
        subsets.setdefault(group, []).append(r['pair_id'])
    subsets.pop('none')
    scores = {}
    for position, prefix in enumerate(('', 'type/', 'object/', 'value/')):
        for name, ids in subsets.items():
            values = [expected[i][position] for i in ids]
            if None not in values:  # checks that exist for every pair
                scores[f'truth/{prefix}{name}'] = 100 * sum(values) / len(
                    values)
    return scores


def test_all_variants_are_in_the_fixture(predictions):
    records, _, _, _ = predictions
    kinds = {r['change_type'] for r in records}
    assert kinds == set(TYPES) | {'none'}
    captions = [r['prediction'] for r in records]
    assert any(' has been added' in c for c in captions)
    assert any(' became ' in c for c in captions)


def test_metric_matches_the_hand_table(predictions):
    records, expected, root, _ = predictions
    metric = METRICS.build(dict(type='CaptionTruthMetric', data_root=root))
    samples = []
    for r in records:
        sample = DataSample(metainfo=dict(
            pair_id=r['pair_id'], change_type=r['change_type'],
            gt_captions=r['references']))
        sample.pred_caption = r['prediction']
        samples.append(sample)
    metric.process(None, samples[:7])
    # the distributed sampler's padding repeats samples at the end; the
    # data set's size drops it
    metric.process(None, samples[7:] + samples[:2])
    result = metric.evaluate(size=len(records))
    hand = _hand_scores(records, expected)
    assert set(result) == set(hand)
    for key, value in hand.items():
        assert result[key] == pytest.approx(value), key
    # the wrong-value and wrong-object captions are not true, so the
    # colour share is below the right-type share
    assert result['truth/color'] < result['truth/type/color']
    for key in ('truth/value/add', 'truth/value/semantic',
                'truth/value/total', 'truth/object/distractor',
                'truth/object/total'):
        assert key not in result, key
    assert 'truth/object/semantic' in result and 'truth/type/total' in result


def test_tool_reports_the_metric_values(predictions, capsys):
    records, expected, root, path = predictions
    scores = load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
        [path, '--data-root', root, '--show', '1'])
    assert {f'truth/{k}': v for k, v in scores.items()} == pytest.approx(
        _hand_scores(records, expected))
    out = capsys.readouterr().out
    assert 'right object' in out and '[none]' in out


def test_errors_name_the_file_and_the_key(predictions, tmp_path):
    records, _, root, _ = predictions
    # a set with one scene graph, not the one of the pair graded
    (tmp_path / 'scenes').mkdir()
    (tmp_path / 'scenes' / 'CLEVR_default_000999.json').write_text('{}')
    metric = METRICS.build(dict(type='CaptionTruthMetric',
                                data_root=str(tmp_path)))
    metric.results = [dict(pair_id='000001.png', prediction='x',
                           change_type='add')]
    with pytest.raises(FileNotFoundError,
                       match='CLEVR_default_000001.json.*data_root'):
        metric.compute_metrics(metric.results)
    metric = METRICS.build(dict(type='CaptionTruthMetric', data_root=root))
    wrong = next(r for r in records if r['change_type'] == 'move')
    metric.results = [dict(wrong, change_type='add')]
    with pytest.raises(ValueError, match="has change type 'add'"):
        metric.compute_metrics(metric.results)
    with pytest.raises(KeyError, match='change_type'):
        metric.process(None, [dict(pair_id='1', pred_caption='x')])
    with pytest.raises(ValueError, match='data_root'):
        METRICS.build(dict(type='CaptionTruthMetric', data_root=''))


def test_a_none_prediction_is_not_true(predictions, tmp_path, capsys):
    """A pair with no caption (``None``) is graded as not true, every partial
    check wrong, by the metric and by the tool alike."""
    records, expected, root, _ = predictions
    none_of = {next(r['pair_id'] for r in records if r['change_type'] == k)
               for k in ('color', 'move', 'none')}
    records = [dict(r, prediction=None) if r['pair_id'] in none_of else r
               for r in records]
    expected = dict(expected)
    for pair_id in none_of:
        truth = expected[pair_id]
        expected[pair_id] = tuple(None if v is None else False for v in truth)
    hand = _hand_scores(records, expected)
    metric = METRICS.build(dict(type='CaptionTruthMetric', data_root=root))
    for r in records:
        metric.process(None, [dict(pair_id=r['pair_id'],
                                   pred_caption=r['prediction'],
                                   change_type=r['change_type'])])
    result = metric.evaluate(size=len(records))
    assert result == pytest.approx(hand)
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps(records))
    scores = load_tool('tools/analysis_tools/check_synthetic_captions.py').main(
        [str(path), '--data-root', root, '--show', '5'])
    assert {f'truth/{k}': v for k, v in scores.items()} == pytest.approx(hand)
    assert 'no caption (None)' in capsys.readouterr().out
