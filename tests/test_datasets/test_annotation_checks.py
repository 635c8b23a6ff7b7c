"""mmidc.datasets.annotation_checks: each fault of an annotation file is a
ValueError naming the file and the record or key (the data sets' own cases:
tests/test_faults/test_bad_annotations.py)."""
import pytest

from mmidc.datasets.annotation_checks import (caption_list, check_not_empty,
                                              check_record, load_json,
                                              read_text, str_field)


def test_read_text_and_load_json(tmp_path):
    path = tmp_path / 'a.json'
    path.write_bytes(b'\xef\xbb\xbf{"x": [1]}')  # a byte order mark
    assert read_text(str(path)) == '{"x": [1]}'
    assert load_json(str(path)) == {'x': [1]}
    path.write_bytes(b'{"x": "caf\xe9"}')  # latin-1
    with pytest.raises(ValueError, match=r'a\.json: not UTF-8 text \(byte 10, line 1'):
        read_text(str(path))
    path.write_text('{"x": ')
    with pytest.raises(ValueError, match=r'a\.json: not valid JSON'):
        load_json(str(path))
    with pytest.raises(FileNotFoundError, match='missing.json'):
        read_text(str(tmp_path / 'missing.json'))


def test_record_and_field_types():
    record = dict(img='a.png', captions=['one', 'two'], id=7)
    assert check_record(record, 'f: record 0', ('img', 'captions')) is record
    with pytest.raises(ValueError, match='f: record 1 has no key "captions"'):
        check_record(dict(img='a.png'), 'f: record 1', ('img', 'captions'))
    with pytest.raises(ValueError, match='must be an object'):
        check_record(['a.png'], 'f: record 2', ('img', ))
    assert str_field('a.png', 'f', 'img') == 'a.png'
    assert str_field(7, 'f', 'id', allow_int=True) == '7'
    for bad in (7, '  ', None):
        with pytest.raises(ValueError, match='key "img" must be a non-empty string'):
            str_field(bad, 'f', 'img')
    with pytest.raises(ValueError, match='or an int'):
        str_field(True, 'f', 'id', allow_int=True)


def test_caption_list():
    assert caption_list(('a', ''), 'f', 'captions') == ['a', '']
    with pytest.raises(ValueError, match='is a string'):
        caption_list('the cube moved', 'f', 'captions')
    with pytest.raises(ValueError, match='item 1 must be a string, got int'):
        caption_list(['a', 3], 'f', 'captions')
    with pytest.raises(ValueError, match='must be a list of strings, got dict'):
        caption_list({'a': 1}, 'f', 'captions')


def test_check_not_empty():
    check_not_empty([dict()], 'train.json (train)')
    with pytest.raises(ValueError, match=r'train.json \(train\): the split has no pairs'):
        check_not_empty([], 'train.json (train)')
