"""mmidc.apis.pair_sources: pairs from a folder's naming scheme, a JSONL
file, or whatever a demo folder holds (the JSONL parser shared with
ImagePairDataset: tests/test_datasets/test_image_pair_dataset.py)."""
import json
from pathlib import Path

import pytest

from mmidc.apis.pair_sources import (find_example_pairs, pairs_from_folder,
                                     pairs_from_jsonl)


def _touch(folder, *names):
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b'')


def test_folder_naming_schemes(tmp_path):
    flat = tmp_path / 'flat'
    _touch(flat, 'b_before.PNG', 'b-after.jpg', 'a_before.png', 'a_after.png',
           'c_before.png', 'notes_before.txt', 'notes_after.txt')
    pairs = pairs_from_folder(str(flat))
    assert [(p.pair_id, p.img1.split('/')[-1], p.img2.split('/')[-1])
            for p in pairs] == [('a', 'a_before.png', 'a_after.png'),
                                ('b', 'b_before.PNG', 'b-after.jpg')]  # c: no partner
    split = tmp_path / 'split'
    _touch(split, 'before/x.png', 'after/x.webp', 'after/y.png')
    assert [p.pair_id for p in pairs_from_folder(str(split))] == ['x']
    with pytest.raises(ValueError, match='no pairs found; name them NAME_before'):
        pairs_from_folder(str(tmp_path / 'split' / 'before'))
    with pytest.raises(NotADirectoryError):
        pairs_from_folder(str(tmp_path / 'missing'))


def test_folder_remote_sensing_layout(tmp_path):
    """A/ before, B/ after (LEVIR-CC's images/<split>/); label/ ignored."""
    rs = tmp_path / 'test'
    _touch(rs, 'A/test_000001.png', 'B/test_000001.png', 'A/test_000002.png',
           'B/test_000002.png', 'A/test_000003.png', 'label/test_000001.png')
    pairs = pairs_from_folder(str(rs))
    assert [(p.pair_id, Path(p.img1).parent.name, Path(p.img2).parent.name)
            for p in pairs] == [('test_000001', 'A', 'B'),
                                ('test_000002', 'A', 'B')]


def test_jsonl_and_example_folders(tmp_path):
    records = [dict(img1='1a.png', img2='1b.png', captions='one caption'),
               dict(img1='2a.png', img2='2b.png', pair_id='two')]
    (tmp_path / 'pairs.jsonl').write_text('\n'.join(map(json.dumps, records)))
    pairs = pairs_from_jsonl(str(tmp_path / 'pairs.jsonl'), 'root')
    assert [(p.pair_id, p.img1, p.captions) for p in pairs] == [
        ('0', 'root/1a.png', ['one caption']), ('two', 'root/2a.png', [])]
    examples = find_example_pairs(str(tmp_path), limit=1)
    assert [(p.pair_id, p.img2) for p in examples] == [('0', str(tmp_path / '1b.png'))]
    (tmp_path / 'bad.jsonl').write_text(json.dumps(dict(img1='a.png')))
    with pytest.raises(ValueError, match='needs the keys "img1" and "img2"'):
        pairs_from_jsonl(str(tmp_path / 'bad.jsonl'))


def test_folder_sub_folders_are_searched(tmp_path):
    """Pairs in sub-folders (any scheme in each), named by their path."""
    _touch(tmp_path, 'top_before.png', 'top_after.png',
           'site1/x_before.png', 'site1/x_after.png',
           'site1/deeper/before/y.png', 'site1/deeper/after/y.png',
           'site1/deeper/before/z/w.png', 'site1/deeper/after/z/w.png',
           'images/test/A/t1.png', 'images/test/B/t1.png',
           'images/test/label/t1.png', 'images/train/A/t2.png',
           'images/train/B/t2.png', '.hidden/h_before.png',
           '.hidden/h_after.png', 'lonely/q_before.png')
    pairs = pairs_from_folder(str(tmp_path))
    assert [p.pair_id for p in pairs] == [
        'images/test/t1', 'images/train/t2', 'site1/deeper/y',
        'site1/deeper/z/w', 'site1/x', 'top']
    by_id = {p.pair_id: p for p in pairs}
    assert by_id['site1/deeper/z/w'].img2 == str(
        tmp_path / 'site1/deeper/after/z/w.png')
    assert by_id['images/test/t1'].img1 == str(tmp_path / 'images/test/A/t1.png')
    # only a sub-folder holds pairs: found, not "no pairs found"
    assert [p.pair_id for p in pairs_from_folder(str(tmp_path / 'site1'))] == [
        'deeper/y', 'deeper/z/w', 'x']


def test_folder_images_it_does_not_read_are_named(tmp_path, monkeypatch):
    """NAME_before / NAME_after images beside before/ + after/ sub-folders
    (read by the sub-folders only), and two images for one side of a pair
    (another extension, or the same id from two schemes), are not dropped
    or picked without a word: the log names them, and the pick is the same
    on every run."""
    from mmidc.apis import pair_sources
    logged = []
    monkeypatch.setattr(pair_sources, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    _touch(tmp_path, 'before/y.png', 'after/y.png', 'p_before.png',
           'p_after.png', 'before/q.jpg', 'before/q.png', 'after/q.png',
           'site/x_before.png', 'site/x_after.png', 'before/site/x.png')
    pairs = pairs_from_folder(str(tmp_path))
    assert [p.pair_id for p in pairs] == ['q', 'site/x', 'y']
    by_id = {p.pair_id: p for p in pairs}
    assert by_id['q'].img1 == str(tmp_path / 'before/q.png')
    assert by_id['site/x'].img1 == str(tmp_path / 'site/x_before.png')
    text = '\n'.join(logged)
    assert 'p_before.png' in text and 'before/ + after/' in text
    assert 'before/q.jpg' in text and 'before/q.png' in text
    assert 'before/site/x.png' in text and 'site/x_before.png' in text
