import json
import os

import pytest
from PIL import Image

from mmidc.datasets import CHANGE_TYPES, ImagePairDataset
from mmidc.registry import DATASETS
from tests.helpers.pair_trees import make_generic_tree, write_records


@pytest.mark.parametrize('ann_name', ['pairs.json', 'pairs.jsonl'])
def test_reads_json_and_jsonl(tmp_path, ann_name):
    records = make_generic_tree(str(tmp_path), ann_name)
    dataset = DATASETS.build(
        dict(type='ImagePairDataset', ann_file=ann_name,
             data_root=str(tmp_path), data_prefix=dict(img_path='imgs')))
    assert len(dataset) == 3
    entries = [dataset.get_data_info(i) for i in range(3)]
    # pair_id defaults to the record index, change_type to "unknown".
    assert [e['pair_id'] for e in entries] == ['0', 'custom-1', '2']
    assert [e['change_type'] for e in entries] == ['unknown', 'move',
                                                   'unknown']
    assert entries[2]['img1_path'] == str(tmp_path / 'imgs/before/2.png')
    assert entries[2]['img2_path'] == str(tmp_path / 'imgs/after/2.png')
    assert entries[0]['gt_captions'] == records[0]['captions']
    assert dataset.metainfo['change_types'] == CHANGE_TYPES


def test_any_change_type_is_read(tmp_path):
    """Change types are open: a data set's own names are kept as they are."""
    def types(records):
        records[0]['change_type'] = 'change'
        records[2]['change_type'] = 'new building'
    dataset = ImagePairDataset(**_write_bad(tmp_path, types))
    assert [dataset.get_data_info(i)['change_type'] for i in range(3)] == [
        'change', 'move', 'new building']


@pytest.mark.parametrize('name', ['no_change', 'None', 'unchanged', 'distractor'])
def test_a_no_change_look_alike_type_is_a_warning(tmp_path, monkeypatch, name):
    """'none' marks a no-change pair; 'no_change' (the name of the scores'
    subset) is read as a change type and scored among the change pairs."""
    from mmengine.logging import MMLogger
    seen = []
    logger = MMLogger.get_current_instance()
    original = logger.log
    monkeypatch.setattr(logger, 'log', lambda level, msg, *a, **k: (
        seen.append(msg), original(level, msg, *a, **k)))

    def types(records):
        records[0]['change_type'] = name
        records[2]['change_type'] = name
    dataset = ImagePairDataset(**_write_bad(tmp_path, types))
    assert dataset.get_data_info(0)['change_type'] == name  # read as it is
    warned = [m for m in seen if f"change_type {name!r}" in m]
    assert len(warned) == 1, seen
    assert 'pairs.json' in warned[0] and '2 pair(s)' in warned[0]
    assert "'none'" in warned[0]


def test_lazy_init_defers_reading(tmp_path):
    make_generic_tree(str(tmp_path))
    dataset = ImagePairDataset('pairs.json', str(tmp_path),
                               data_prefix=dict(img_path='imgs'),
                               lazy_init=True)
    assert not dataset._fully_initialized
    assert len(dataset) == 3  # builds on first use
    assert dataset._fully_initialized


def _write_bad(tmp_path, mutate):
    records = make_generic_tree(str(tmp_path))
    mutate(records)
    write_records(str(tmp_path / 'pairs.json'), records)
    return dict(ann_file='pairs.json', data_root=str(tmp_path),
                data_prefix=dict(img_path='imgs'))


@pytest.mark.parametrize('mutate, error, words', [
    (lambda r: r[1].update(img2='after/nope.png'), FileNotFoundError,
     ['imgs/after/nope.png', 'pairs.json']),
    (lambda r: r[0].update(captions=[]), ValueError,
     ['pairs.json', 'pair "0"', 'empty caption list']),
    (lambda r: r[2].update(captions=['ok', '']), ValueError,
     ['pairs.json', 'pair "2"', 'caption 1']),
    (lambda r: r[2].update(pair_id='custom-1'), ValueError,
     ['pairs.json', 'custom-1', 'unique']),
    (lambda r: r[0].update(change_type='  '), ValueError,
     ['pairs.json', 'record 0', 'change_type', 'non-empty string']),
    (lambda r: r[0].update(change_type='total'), ValueError,
     ['pairs.json', 'pair "0"', "'total'"]),
    (lambda r: r[1].pop('img1'), ValueError,
     ['pairs.json', 'record 1', '"img1"']),
    (lambda r: r[0].update(captions='just a string'), ValueError,
     ['pairs.json', 'record 0', 'list of strings']),
])
def test_bad_input_names_file_and_key(tmp_path, mutate, error, words):
    cfg = _write_bad(tmp_path, mutate)
    with pytest.raises(error) as info:
        ImagePairDataset(**cfg)
    for word in words:
        assert word in str(info.value)


def test_bad_jsonl_line_named(tmp_path):
    make_generic_tree(str(tmp_path), 'pairs.jsonl')
    with open(tmp_path / 'pairs.jsonl', 'a') as f:
        f.write('{"img1": oops\n')
    with pytest.raises(ValueError, match=r'pairs.jsonl: line 4'):
        ImagePairDataset('pairs.jsonl', str(tmp_path),
                         data_prefix=dict(img_path='imgs'))


@pytest.mark.parametrize('indent', [1, None])
def test_a_json_list_in_a_jsonl_file_names_the_fix(tmp_path, indent):
    # json.dump(records, open('train.jsonl', 'w')): one JSON list, pretty
    # printed over many lines or on one line
    records = make_generic_tree(str(tmp_path), 'pairs.json')
    (tmp_path / 'pairs.jsonl').write_text(json.dumps(records, indent=indent))
    with pytest.raises(ValueError) as error:
        ImagePairDataset('pairs.jsonl', str(tmp_path), data_prefix=dict(img_path='imgs'))
    message = str(error.value)
    assert 'pairs.jsonl' in message and 'one JSON list' in message
    assert '.json' in message and 'one object a line' in message


def test_a_bad_json_list_names_the_line_and_the_jsonl_fix_only_for_jsonl(tmp_path):
    """A JSON list with a trailing comma is not told to become .jsonl; one
    object a line in a .json file is."""
    records = make_generic_tree(str(tmp_path), 'pairs.json')
    lines = [json.dumps(r) for r in records]
    (tmp_path / 'trailing.json').write_text('[' + ',\n'.join(lines) + ',\n]')
    with pytest.raises(ValueError) as error:
        ImagePairDataset('trailing.json', str(tmp_path), data_prefix=dict(img_path='imgs'))
    assert 'trailing.json: not valid JSON' in str(error.value)
    assert 'line 4' in str(error.value) and '.jsonl' not in str(error.value)
    (tmp_path / 'lines.json').write_text('\n'.join(lines) + '\n')
    with pytest.raises(ValueError, match=r'lines.json: not valid JSON.*\.jsonl'):
        ImagePairDataset('lines.json', str(tmp_path), data_prefix=dict(img_path='imgs'))


def test_missing_annotation_file(tmp_path):
    with pytest.raises(FileNotFoundError, match='nothing.json'):
        ImagePairDataset('nothing.json', str(tmp_path))


def test_no_annotation_file_given_names_the_option(tmp_path):
    # build_vocab.py --dataset-type ImagePairDataset --data-root DIR without
    # --dataset-options ann_file=...: the error used to name an empty path
    with pytest.raises(ValueError) as error:
        ImagePairDataset(data_root=str(tmp_path))
    message = str(error.value)
    assert 'ann_file' in message and str(tmp_path) in message
    assert "ann_file='train.jsonl'" in message


def test_missing_image_folder_named(tmp_path):
    make_generic_tree(str(tmp_path))
    with pytest.raises(FileNotFoundError, match='image folder not found.*'
                       'wrong/before'):
        ImagePairDataset('pairs.json', str(tmp_path),
                         data_prefix=dict(img_path='wrong'))


def test_image_paths_written_with_the_data_root_get_a_hint(tmp_path, monkeypatch):
    """img1 = 'data/mine/imgs/before/0.png' with data_root 'data/mine': the
    missing folder repeats data/mine, and the error says what to write."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / 'data' / 'mine'
    root.mkdir(parents=True)
    records = make_generic_tree(str(root), 'pairs.json')
    for record in records:
        for key in ('img1', 'img2'):
            record[key] = f'data/mine/imgs/{record[key]}'
    (root / 'pairs.json').write_text(json.dumps(records))
    with pytest.raises(FileNotFoundError) as error:
        ImagePairDataset('pairs.json', 'data/mine')
    message = str(error.value)
    assert 'image folder not found: data/mine/data/mine/imgs/' in message
    assert 'The path repeats data/mine:' in message
    assert 'relative to data_root' in message


def test_corrupt_image_found_by_verify_images(tmp_path):
    cfg = _write_bad(tmp_path, lambda r: None)
    path = tmp_path / 'imgs/after/1.png'
    path.write_bytes(path.read_bytes()[:60])  # truncated PNG
    ImagePairDataset(**cfg)  # existence only: builds
    with pytest.raises(OSError, match='corrupt or unreadable image.*1.png'):
        ImagePairDataset(**cfg, verify_images=True)


def test_verify_images_accepts_good_images(tmp_path):
    cfg = _write_bad(tmp_path, lambda r: None)
    Image.new('L', (8, 8)).save(tmp_path / 'imgs/after/0.png')
    assert len(ImagePairDataset(**cfg, verify_images=True)) == 3
    assert os.path.getsize(tmp_path / 'imgs/after/0.png') > 0


def test_one_parser_for_the_data_set_and_the_inference_tools(tmp_path):
    """ImagePairDataset and pairs_from_jsonl (tools/caption_pair.py, the demo)
    read a pairs file the same way and name the same bad line."""
    from mmidc.apis.pair_sources import pairs_from_jsonl
    records = make_generic_tree(str(tmp_path), 'pairs.jsonl', image_dir='')
    dataset = ImagePairDataset('pairs.jsonl', str(tmp_path))
    pairs = pairs_from_jsonl(str(tmp_path / 'pairs.jsonl'), str(tmp_path))
    assert [(p.pair_id, p.img1, p.img2, p.captions) for p in pairs] == [
        (e['pair_id'], e['img1_path'], e['img2_path'], e['gt_captions'])
        for e in map(dataset.get_data_info, range(len(dataset)))]
    assert pairs[0].captions == records[0]['captions']
    bad = tmp_path / 'bad.jsonl'
    bad.write_text(json.dumps(records[0]) + '\n{"img1": \n')
    for read in (lambda: ImagePairDataset(str(bad)),
                 lambda: pairs_from_jsonl(str(bad))):
        with pytest.raises(ValueError, match='bad.jsonl: line 2 is not valid JSON'):
            read()
    (tmp_path / 'dict.json').write_text('{"img1": "a.png"}')
    for read in (lambda: ImagePairDataset(str(tmp_path / 'dict.json')),
                 lambda: pairs_from_jsonl(str(tmp_path / 'dict.json'))):
        with pytest.raises(ValueError, match='expected a JSON list'):
            read()


def test_verify_images_decodes_a_jpeg_with_zeroed_scan_data(tmp_path):
    """Markers intact, scan data zeroed: PIL's verify() passes it, the
    pipeline's decode fails; verify_images decodes fully and names it."""
    from mmidc.datasets.image_io import read_rgb
    from tests.helpers.hostile_images import zeroed_scan_jpeg
    cfg = _write_bad(tmp_path, lambda r: r[1].update(img2='after/1.jpg'))
    (tmp_path / 'imgs/after/1.jpg').write_bytes(zeroed_scan_jpeg())
    ImagePairDataset(**cfg)  # existence only: builds
    with Image.open(tmp_path / 'imgs/after/1.jpg') as img:
        img.verify()  # the structure is intact
    with pytest.raises(OSError, match='cannot decode image'):
        read_rgb(str(tmp_path / 'imgs/after/1.jpg'))  # mid-epoch
    with pytest.raises(OSError, match=r'corrupt or unreadable image: .*1\.jpg'
                       r' \(does not decode \(OSError: broken data stream'):
        ImagePairDataset(**cfg, verify_images=True)
