"""tools/dataset_converters/download_birds_to_words.py against a local HTTP
server on 127.0.0.1 (tests.helpers.image_server): real-form URLs
``<server>/photos/<id>/medium.jpg?<n>``, one 404, one corrupt photo, one
that fails once."""
import csv
import glob
import os
import os.path as osp
import time

import pytest

from mmidc.datasets import BirdsToWordsDataset
from mmidc.datasets.birds_to_words import image_file_name
from tests.helpers import load_tool
from tests.helpers.progress import RecordingBar
from tests.helpers.hostile_images import zeroed_scan_jpeg
from tests.helpers.image_server import (bad_status_line, image_server,
                                        long_header_line, one_byte_at_a_time,
                                        raw_http_server)
from tests.helpers.pair_trees import (bird_photo, birds_to_words_url,
                                      jpeg_bytes, make_birds_to_words_tree)

tool = load_tool('tools/dataset_converters/download_birds_to_words.py')
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
    with pytest.raises(FileNotFoundError, match=f'{tsv_dir}x: no such file or folder '
                       '.*git clone .*birds-to-words'):
        tool.download_birds_to_words(tsv_dir + 'x', str(tmp_path / 'out'))
    make_birds_to_words_tree(tsv_dir, num_pairs=2, url_style='medium',
                             write_images=False)
    with pytest.raises(ValueError, match="both map to the file 'medium.jpg'"):
        tool.download_birds_to_words(tsv_dir, str(tmp_path / 'out'),
                                     image_name='{basename}')



def _download_with(server, tmp_path, broken, served=None, timeout=5.0):
    """A 4-pair TSV of ``server``'s photos with the URLs of ``broken``
    (photo -> URL) replaced; photos served by ``server`` (``served``:
    photo -> body, else the generated JPEG). Downloads with one retry;
    returns the failures (URL -> (attempts, error)), the fetched files and
    the seconds the run took."""
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    rows = make_birds_to_words_tree(tsv_dir, num_pairs=4,
                                    url_style='inaturalist',
                                    base_url=server.url, write_images=False)
    for photo in range(1001, 1009):
        server.serve_photo(photo, (served or {}).get(photo))
    text = '\n'.join('\t'.join(r) for r in rows) + '\n'
    for photo, new in broken.items():
        text = text.replace(url(server, photo), new)
    with open(osp.join(tsv_dir, 'birds-to-words-v1.0.tsv'), 'w') as f:
        f.write(text)
    start = time.monotonic()
    tool.download_birds_to_words(tsv_dir, out, workers=2, retries=1,
                                 backoff=0, timeout=timeout)
    took = time.monotonic() - start
    failures = read_report(osp.join(out, 'download_failures.tsv'))[1:]
    return ({r[0]: (r[2], r[3]) for r in failures},
            sorted(os.listdir(osp.join(out, 'images'))), took)


def _files(server, photos):
    return sorted(image_file_name(url(server, p)) for p in photos)


def test_broken_servers_and_urls_are_failures_per_url(tmp_path):
    """A bad status line, a 70 KB header line and a URL with a space: each
    is its URL's row in the report, named; the run goes on."""
    with image_server() as server, \
            raw_http_server(bad_status_line) as bad_status, \
            raw_http_server(long_header_line) as long_header:
        broken = {1001: birds_to_words_url(1001, 'inaturalist', bad_status),
                  1003: birds_to_words_url(1003, 'inaturalist', long_header),
                  1005: f'{server.url}/photos/1005/medium photo.jpg'}
        error, fetched, _ = _download_with(server, tmp_path, broken)
    assert set(error) == set(broken.values())
    assert error[broken[1001]] == ('2', 'BadStatusLine: HELLO THERE')
    assert error[broken[1003]][1].startswith(
        'LineTooLong: got more than 65536 bytes')
    assert error[broken[1005]] == (
        '0', "invalid URL: it contains ' ' at "
        f'{broken[1005].index(" ")} (a space or control character)')
    assert fetched == _files(server, (1002, 1004, 1006, 1007, 1008))


def test_timeout_bounds_the_whole_transfer(tmp_path):
    """A server that sends a byte every 0.2 s (each read well within the
    socket time-out; 100 KB would take 5.5 h) is cut at --timeout per
    attempt."""
    with image_server() as server, \
            raw_http_server(one_byte_at_a_time(0.2)) as slow:
        broken = {1006: birds_to_words_url(1006, 'inaturalist', slow)}
        error, fetched, took = _download_with(server, tmp_path, broken,
                                              timeout=1.5)
    assert took < 10, took  # 2 attempts of 1.5 s
    assert error == {broken[1006]: (
        '2', 'TimeoutError: the transfer took more than 1.5 s (--timeout '
        'bounds each attempt in all)')}
    assert len(fetched) == 7


def test_a_jpeg_with_zeroed_scan_data_is_a_corrupt_download(tmp_path):
    """Markers intact, scan data zeroed: PIL's verify() passes it, the full
    decode does not."""
    with image_server() as server:
        error, fetched, _ = _download_with(server, tmp_path, {},
                                           served={1008: zeroed_scan_jpeg()})
    assert error == {url(server, 1008): (
        '2', 'corrupt download: does not decode (OSError: broken data stream '
        'when reading image file)')}
    assert fetched == _files(server, range(1001, 1008))


# The command line: bad options are named, and a run with failures reports
# them and exits 1.
def test_bad_options_are_named(tmp_path, capsys):
    tsv_dir = str(tmp_path / 'tsv')
    os.makedirs(tsv_dir)
    for option in (['--image-name', '{photo}'], ['--workers', '0']):
        with pytest.raises(SystemExit):
            tool.main([tsv_dir, str(tmp_path / 'out'), *option])
        assert option[0] in capsys.readouterr().err


def test_failures_are_reported_with_exit_status_1(tmp_path, capsys):
    with image_server() as server:  # started and stopped: nothing listens
        base = server.url
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    make_birds_to_words_tree(tsv_dir, num_pairs=1, url_style='inaturalist',
                             base_url=base, write_images=False)
    assert tool.main([tsv_dir, out, '--retries', '0', '--timeout', '2']) == 1
    printed = capsys.readouterr().out
    assert '0 of 2 images in' in printed and '2 failed:' in printed
    assert '1 of 1 pairs miss an image' in printed


def test_no_connection_at_all_stops_the_run_early(tmp_path, capsys):
    """Nothing answers (no network): once the first images have all failed
    to connect, the rest are not tried (each would wait out its retries);
    they are in the reports, and the message says what to check."""
    with image_server() as server:  # started and stopped: nothing listens
        base = server.url
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    make_birds_to_words_tree(tsv_dir, num_pairs=20, url_style='inaturalist',
                             base_url=base, write_images=False)
    assert tool.main([tsv_dir, out, '--workers', '2', '--retries', '1',
                      '--backoff', '0.2', '--timeout', '2']) == 1
    failures = read_report(osp.join(out, 'download_failures.tsv'))[1:]
    assert len(failures) == 40  # every image of the 20 pairs
    not_tried = [r for r in failures if r[2] == '0']
    assert len(not_tried) >= 40 - tool.NO_CONNECTION_STOP - 2, failures
    assert all(r[3].startswith('not tried') for r in not_tried)
    printed = capsys.readouterr().out
    host = base.split('//')[1]
    assert (f'no image could be fetched from {host}: the first '
            f'{tool.NO_CONNECTION_STOP} all failed to connect') in printed
    assert 'network' in printed
    assert '20 of 20 pairs miss an image' in printed


def test_only_the_host_that_cannot_be_reached_is_given_up(tmp_path, capsys):
    """The first images are on a host that does not answer, the others on
    one that does: those are fetched; only the dead host's are not tried."""
    with image_server() as dead:  # started and stopped: nothing listens
        dead_url = dead.url
    with image_server() as server:
        tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
        rows = make_birds_to_words_tree(tsv_dir, num_pairs=16, url_style='inaturalist',
                                        base_url=server.url, write_images=False)
        for photo in range(1001, 1033):
            server.serve_photo(photo)
        text = '\n'.join('\t'.join(r) for r in rows) + '\n'
        for photo in range(1001, 1021):  # the first 10 pairs: the dead host
            text = text.replace(url(server, photo),
                                birds_to_words_url(photo, 'inaturalist', dead_url))
        with open(osp.join(tsv_dir, 'birds-to-words-v1.0.tsv'), 'w') as f:
            f.write(text)
        result = tool.download_birds_to_words(tsv_dir, out, workers=2, retries=0,
                                              backoff=0, timeout=2)
    failures = read_report(osp.join(out, 'download_failures.tsv'))[1:]
    assert len(failures) == 20 and all(dead_url in r[0] for r in failures)
    assert result['fetched'] == 12  # every image of the host that answers
    assert list(result['no_connection']) == [dead_url.split('//')[1]]
