"""mmidc.datasets.birds_to_words_download against a local HTTP
server on 127.0.0.1 (tests.helpers.image_server): real-form URLs
``<server>/photos/<id>/medium.jpg?<n>``, one 404, one corrupt photo, one
that fails once."""
import csv
import glob
import os
import os.path as osp

import pytest

from mmidc.datasets import BirdsToWordsDataset
from mmidc.datasets import birds_to_words_download as tool
from mmidc.datasets.birds_to_words import image_file_name
from tests.helpers.progress import RecordingBar
from tests.helpers.image_server import image_server
from tests.helpers.pair_trees import (bird_photo, birds_to_words_url,
                                      jpeg_bytes, make_birds_to_words_tree)

PHOTOS = range(1001, 1025)  # 12 pairs: train 8, val 2, test 2
GONE, CORRUPT, FLAKY = 1004, 1012, 1007  # pair 1 (train), 5 (test), 3


def read_report(path):
    with open(path, encoding='utf-8') as f:
        return list(csv.reader(f, delimiter='\t'))


@pytest.fixture
def server():
    with image_server() as server:
        for photo in PHOTOS:
            server.serve_photo(photo)
        del server.routes[f'/photos/{GONE}/medium.jpg']
        truncated = jpeg_bytes(bird_photo(CORRUPT))[:-300]
        server.serve_photo(CORRUPT, truncated)
        server.failures_first[f'/photos/{FLAKY}/medium.jpg'] = 1
        yield server


def url(server, photo):
    return birds_to_words_url(photo, 'inaturalist', server.url)


def test_downloads_resumes_and_reports(server, tmp_path, monkeypatch):
    monkeypatch.setattr(tool, 'ProgressBar', RecordingBar)
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    make_birds_to_words_tree(tsv_dir, num_pairs=12, url_style='inaturalist',
                             base_url=server.url, write_images=False)
    def download():  # the number of images that failed
        return len(tool.download_birds_to_words(
            tsv_dir, out, workers=3, retries=2, backoff=0,
            timeout=5)['failures'])

    assert download() == 2  # not every image is there
    bar = RecordingBar.made[-1]
    assert bar.total == bar.done == len(PHOTOS)
    images = osp.join(out, 'images')
    name = {p: image_file_name(url(server, p)) for p in PHOTOS}
    assert name[1001] == f'127.0.0.1_{server.url.rsplit(":", 1)[1]}_photos_1001_medium.jpg'
    assert sorted(os.listdir(images)) == sorted(
        name[p] for p in PHOTOS if p not in (GONE, CORRUPT))  # no .part left
    assert server.requests[f'/photos/{FLAKY}/medium.jpg'] == 2  # retried
    assert server.requests[f'/photos/{GONE}/medium.jpg'] == 1  # 404: no retry
    assert server.requests[f'/photos/{CORRUPT}/medium.jpg'] == 3
    assert osp.isfile(osp.join(out, 'birds-to-words-v1.0.tsv'))

    failures = read_report(osp.join(out, 'download_failures.tsv'))
    assert failures[0] == ['url', 'file', 'attempts', 'error']
    by_url = {r[0]: r for r in failures[1:]}
    assert set(by_url) == {url(server, GONE), url(server, CORRUPT)}
    assert by_url[url(server, GONE)][1:3] == [name[GONE], '1']
    assert by_url[url(server, GONE)][3].startswith('HTTP 404')
    assert by_url[url(server, CORRUPT)][1:3] == [name[CORRUPT], '3']
    assert 'truncated JPEG' in by_url[url(server, CORRUPT)][3]
    missing = read_report(osp.join(out, 'missing_pairs.tsv'))
    assert missing[1:] == [
        ['birds-to-words-v1.0.tsv', 'train', url(server, 1003),
         url(server, GONE), name[GONE]],
        ['birds-to-words-v1.0.tsv', 'test', url(server, 1011),
         url(server, CORRUPT), name[CORRUPT]]]

    # the loader reads the tool's layout, leaving out the two pairs
    assert len(BirdsToWordsDataset(out, split='train',
                                   skip_missing_images=True)) == 7
    assert len(BirdsToWordsDataset(out, split='test',
                                   skip_missing_images=True)) == 1
    with pytest.raises(FileNotFoundError, match=name[GONE]):
        BirdsToWordsDataset(out, split='train')

    # resume: valid files stay, a damaged one and the failed ones are
    # fetched again
    server.serve_photo(CORRUPT)
    kept = osp.join(images, name[1001])
    os.utime(kept, (1e9, 1e9))
    damaged = osp.join(images, name[1020])
    with open(damaged, 'r+b') as f:
        f.truncate(100)
    before = server.requests.copy()
    assert download() == 1
    bar = RecordingBar.made[-1]
    assert bar.total == bar.done == 3
    fetched = server.requests - before
    assert set(fetched) == {f'/photos/{p}/medium.jpg'
                            for p in (GONE, CORRUPT, 1020)}
    assert osp.getmtime(kept) == 1e9
    assert tool.image_problem(damaged) is None
    assert [r[0] for r in read_report(
        osp.join(out, 'download_failures.tsv'))[1:]] == [url(server, GONE)]
    assert len(read_report(osp.join(out, 'missing_pairs.tsv'))) == 2
    assert len(BirdsToWordsDataset(out, split='test')) == 2

    # everything there: exit 0, nothing fetched
    server.serve_photo(GONE)
    assert download() == 0
    before = server.requests.copy()
    assert download() == 0
    assert server.requests == before
    assert read_report(osp.join(out, 'missing_pairs.tsv'))[1:] == []
    assert not glob.glob(osp.join(images, '*.part'))


def test_a_dead_server_is_a_failure_per_url_not_a_crash(tmp_path):
    with image_server() as server:  # started and stopped: nothing listens
        base = server.url
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    make_birds_to_words_tree(tsv_dir, num_pairs=1, url_style='inaturalist',
                             base_url=base, write_images=False)
    result = tool.download_birds_to_words(tsv_dir, out, retries=1, backoff=0,
                                          timeout=2)
    failures = read_report(osp.join(out, 'download_failures.tsv'))[1:]
    assert len(result['missing_pairs']) == result['pairs'] == 1
    assert len(failures) == 2 and all(r[2] == '2' for r in failures)
    assert all('URLError' in r[3] for r in failures), failures


def test_bad_tsvs_are_named(tmp_path):
    tsv_dir = str(tmp_path / 'tsv')
    os.makedirs(tsv_dir)
    with pytest.raises(FileNotFoundError, match=f'no .tsv file in {tsv_dir}'):
        tool.download_birds_to_words(tsv_dir, str(tmp_path / 'out'))
    make_birds_to_words_tree(tsv_dir, num_pairs=2, url_style='medium',
                             write_images=False)
    with pytest.raises(ValueError, match="both map to the file 'medium.jpg'"):
        tool.download_birds_to_words(tsv_dir, str(tmp_path / 'out'),
                                     image_name='{basename}')
