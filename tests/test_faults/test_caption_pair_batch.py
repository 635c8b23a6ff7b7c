"""tools/caption_pair.py --pairs-file with hostile image files: each bad
pair gets an error record naming its file, the others are captioned, and the
exit status says that some failed."""
import json

import pytest
from PIL import Image

from tests.helpers import load_tool
from tests.helpers.demo_server import tiny_model_files
from tests.helpers.hostile_images import malformed_pngs
from tests.helpers.tiny_models import square_pair

pytestmark = pytest.mark.usefixtures('one_thread')


@pytest.fixture(scope='module')
def captioner_files(tmp_path_factory):
    return tiny_model_files('captioner', tmp_path_factory.mktemp('captioner'))


@pytest.fixture
def pairs_file(tmp_path):
    """Good pairs 'good0' and 'good1' around one pair per malformed PNG
    (its before image)."""
    before, after, _ = square_pair(size=40)
    Image.fromarray(before).save(tmp_path / 'before.png')
    Image.fromarray(after).save(tmp_path / 'after.png')
    records = [dict(img1='before.png', img2='after.png', pair_id='good0')]
    for name, data in malformed_pngs().items():
        (tmp_path / name).write_bytes(data)
        records.append(dict(img1=name, img2='after.png', pair_id=name))
    records.append(dict(img1='before.png', img2='after.png', pair_id='good1'))
    path = tmp_path / 'pairs.jsonl'
    path.write_text('\n'.join(json.dumps(r) for r in records))
    return path


@pytest.mark.parametrize('workers', ['0', '2'])
def test_bad_files_get_error_records_and_the_batch_goes_on(
        captioner_files, pairs_file, tmp_path, capsys, workers):
    cli = load_tool('tools/caption_pair.py')
    out = tmp_path / 'results.jsonl'
    code = cli.main([*captioner_files, '--pairs-file', str(pairs_file),
                     '--data-root', str(tmp_path), '--out', str(out),
                     '--batch-size', '3', '--workers', workers,
                     '--device', 'cpu'])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    bad = sorted(malformed_pngs())
    assert code == 1
    assert [r['pair_id'] for r in results] == ['good0', *malformed_pngs(), 'good1']
    assert results[0]['caption'] and results[-1]['caption']
    for record in results[1:-1]:
        assert 'caption' not in record
        assert record['pair_id'] in record['error'], record  # names the file
    printed = capsys.readouterr()
    assert f'2 of {len(bad) + 2} pairs captioned' in printed.out
    assert f'{len(bad)} pair(s) failed' in printed.err


def test_an_unexpected_error_in_one_pair_is_recorded_too(
        captioner_files, pairs_file, tmp_path, monkeypatch):
    """Not only image errors: whatever fails while preparing one pair is
    that pair's error record, with the error's type."""
    from mmidc.apis.pair_loader import PairDecoder
    cli = load_tool('tools/caption_pair.py')
    prepare = PairDecoder.__call__

    def flaky(self, img1, img2, pair_id=None):
        if pair_id == 'good1':
            raise ZeroDivisionError('a bug in one pipeline step')
        return prepare(self, img1, img2, pair_id)

    monkeypatch.setattr(PairDecoder, '__call__', flaky)
    out = tmp_path / 'results.jsonl'
    code = cli.main([*captioner_files, '--pairs-file', str(pairs_file),
                     '--data-root', str(tmp_path), '--out', str(out),
                     '--workers', '0', '--device', 'cpu'])
    results = {r['pair_id']: r for r in map(json.loads, out.read_text().splitlines())}
    assert code == 1 and results['good0']['caption']
    assert results['good1']['error'] == 'ZeroDivisionError: a bug in one pipeline step'
