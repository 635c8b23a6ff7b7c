"""Download the Birds-to-Words photos into BirdsToWordsDataset's layout.

    python tools/dataset_converters/download_birds_to_words.py TSV_DIR OUT_DIR \
        [--image-name '{flat}'] [--workers 8] [--retries 4] [--timeout 30]

Reads every ``*.tsv`` of ``TSV_DIR`` (or the one TSV file given), copies
them to ``OUT_DIR`` and fetches every image URL of their ``img1ImgURL`` and
``img2ImgURL`` columns to ``OUT_DIR/images/<name>``, ``<name>`` being
BirdsToWordsDataset's naming (``--image-name``, the loader's
``image_name``; default ``'{flat}'``: host and path in one file name).
``OUT_DIR`` is then a ``data_root`` for the loader.

- Resumable: an image already there that passes the check below is not
  fetched again; each file is written to ``<name>.part`` and renamed when
  it is complete and valid, so an interrupted run leaves no half image.
- Each download is checked: size, first bytes and end marker, then PIL's
  ``verify`` and a full decode, as training decodes it. A failed fetch is
  retried (``--retries`` more times, waiting ``--backoff * 2**k`` seconds),
  except for HTTP 4xx answers other than 408 and 429 (a deleted photo stays
  deleted).
- ``--timeout`` bounds each attempt at a file in all (connection, headers
  and body), so a server that sends a byte at a time cannot hold a worker.
- A URL that fails in any way (an HTTP error, a server that breaks HTTP, a
  URL with a space, a time-out) is a row of the failure report; the run
  goes on with the other URLs; but when the first ``NO_CONNECTION_STOP``
  images of a host all fail to connect, its other images are reported as
  not tried, naming the error.
- ``OUT_DIR/download_failures.tsv``: each URL that could not be fetched,
  with its file, the number of attempts and the last error.
- ``OUT_DIR/missing_pairs.tsv``: each pair (TSV, split, both URLs) with a
  missing image and the missing files. Train with
  ``skip_missing_images=True`` (the shipped Birds-to-Words configs do) to
  leave those pairs out.

The exit status is 0 when every image is there, 1 otherwise.
"""
import argparse
import csv
import glob
import http.client
import os
import os.path as osp
import re
import shutil
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Dict, List, Optional, Tuple

from mmengine.logging import print_log
from mmengine.utils import ProgressBar
from mmidc.datasets.birds_to_words import (DEFAULT_IMAGE_NAME,
                                           BirdsToWordsDataset,
                                           check_image_name,
                                           image_file_problem, map_image_files)
from mmidc.datasets.image_io import image_decode_problem

__all__ = ['download_birds_to_words', 'image_problem', 'read_tsvs',
           'tsv_files']

USER_AGENT = 'mmidc-birds-to-words-download'
#: HTTP statuses worth another attempt (time-outs, rate limits, server errors)
RETRY_STATUSES = {408, 429}
MAX_IMAGE_BYTES = 64 << 20
#: What http.client refuses in a URL (controls and the space): such a URL
#: cannot be requested as it is.
_BAD_URL_CHARS = re.compile('[\x00-\x20\x7f]')
#: When this many images of a host (at least twice the workers) have been
#: tried and every one failed to connect (``URLError``: no network, no name
#: resolution, a firewall), its other images are not tried: each would wait
#: out its retries (hours for the whole TSV).
NO_CONNECTION_STOP = 16


def tsv_files(tsv_dir: str) -> List[str]:
    """The TSV file given, or every ``*.tsv`` of the folder."""
    if osp.isfile(tsv_dir):
        return [tsv_dir]
    if not osp.exists(tsv_dir):
        raise FileNotFoundError(
            f'{tsv_dir}: no such file or folder (TSV_DIR: the folder of '
            'birds-to-words-v1.0.tsv, e.g. a clone made with git clone '
            'https://github.com/google-research-datasets/birds-to-words)')
    found = sorted(glob.glob(osp.join(tsv_dir, '*.tsv')))
    if not found:
        raise FileNotFoundError(f'no .tsv file in {tsv_dir}')
    return found


def read_tsvs(paths: List[str], image_name: str
              ) -> Tuple[Dict[str, str], List[Tuple[str, str, str, str]]]:
    """Read the TSVs as the loader does.

    Returns:
        tuple: ``{url: file name}`` over every TSV, and the pairs
        ``(tsv, split, img1ImgURL, img2ImgURL)`` in order of appearance.
    """
    urls, pairs = [], {}
    for path in paths:
        reader = BirdsToWordsDataset(
            data_root=osp.dirname(path), ann_file=osp.basename(path),
            image_name=image_name, lazy_init=True)
        for line_no, row in reader.read_rows():
            for key in ('img1ImgURL', 'img2ImgURL'):
                urls.append((f'{path}: line {line_no} {key}', row[key]))
            pairs.setdefault((osp.basename(path), row['split'],
                              row['img1ImgURL'], row['img2ImgURL']), None)
    file_of = map_image_files(urls, image_name, ', '.join(paths))
    return file_of, list(pairs)


def image_problem(path: str) -> Optional[str]:
    """What is wrong with an image file (cheap check, then PIL's ``verify``
    and a full decode as the data pipeline decodes it), or None."""
    return image_file_problem(path) or image_decode_problem(path)


class TransferDeadline:
    """Ends one attempt's connections when its time is up.

    A timer shuts down every socket the attempt opened (a duplicate of each,
    held until :meth:`cancel`, so no other connection can be hit): the read
    blocked on it returns, and the attempt fails with :attr:`expired` set.
    Socket time-outs alone bound each read, not the transfer.

    Args:
        seconds (float): The time the whole attempt may take.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.expired = False
        self._done = False
        self._socks = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            for sock in self._socks:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def track(self, sock: socket.socket) -> socket.socket:
        """Watch a socket of the attempt (returned as it is)."""
        with self._lock:
            if self._done:
                return sock
            dup = sock.dup()
            self._socks.append(dup)
            if self.expired:
                dup.shutdown(socket.SHUT_RDWR)
        return sock

    def cancel(self) -> None:
        """The attempt is over: stop the timer, release the sockets."""
        with self._lock:
            self._done = True
            self._timer.cancel()
            for sock in self._socks:
                sock.close()
            self._socks = []

    def connection(self, connection_class):
        """A factory of ``connection_class`` whose sockets are watched."""
        def make(host, **kwargs):
            connection = connection_class(host, **kwargs)
            create = connection._create_connection

            def create_tracked(*args, **kw):
                return self.track(create(*args, **kw))

            connection._create_connection = create_tracked
            return connection
        return make


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):

    def __init__(self, deadline: TransferDeadline):
        super().__init__()
        self._deadline = deadline

    def http_open(self, req):
        return self.do_open(
            self._deadline.connection(http.client.HTTPConnection), req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):

    def __init__(self, deadline: TransferDeadline):
        super().__init__()
        self._deadline = deadline

    def https_open(self, req):
        return self.do_open(
            self._deadline.connection(http.client.HTTPSConnection), req,
            context=self._context)


def fetch_once(url: str, part: str, timeout: float) -> None:
    """Write the body of ``url`` to ``part``; raises on any failure.

    The attempt takes at most ``timeout`` seconds in all (also each socket
    operation): past that it raises ``TimeoutError``.
    """
    request = urllib.request.Request(url, headers={'User-Agent': USER_AGENT})
    deadline = TransferDeadline(timeout)
    opener = urllib.request.build_opener(_DeadlineHTTPHandler(deadline),
                                         _DeadlineHTTPSHandler(deadline))
    try:
        with opener.open(request, timeout=timeout) as response, \
                open(part, 'wb') as f:
            size = 0
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_IMAGE_BYTES:
                    raise ValueError(
                        f'larger than {MAX_IMAGE_BYTES >> 20} MiB')
                f.write(chunk)
                if deadline.expired:
                    break
    except Exception:
        if not deadline.expired:
            raise
    finally:
        deadline.cancel()
    if deadline.expired:
        raise TimeoutError(f'the transfer took more than {timeout:g} s '
                           '(--timeout bounds each attempt in all)')


def download(url: str, dest: str, retries: int, backoff: float,
             timeout: float) -> Tuple[Optional[str], int]:
    """Fetch ``url`` to ``dest`` (atomically, checked), with retries.

    Returns:
        tuple: the last error (None on success) and the number of attempts.
    """
    if not url.lower().startswith(('http://', 'https://')):
        return 'not an http(s) URL', 0
    bad = _BAD_URL_CHARS.search(url)
    if bad:
        return (f'invalid URL: it contains {bad.group()!r} at '
                f'{bad.start()} (a space or control character)'), 0
    part = dest + '.part'
    error, attempt = None, 0
    for attempt in range(1, retries + 2):
        if attempt > 1:
            time.sleep(backoff * 2 ** (attempt - 2))
        try:
            fetch_once(url, part, timeout)
            problem = image_problem(part)
            if problem is None:
                os.replace(part, dest)
                return None, attempt
            error = f'corrupt download: {problem}'
        except urllib.error.HTTPError as e:
            error = f'HTTP {e.code} {e.reason}'
            if 400 <= e.code < 500 and e.code not in RETRY_STATUSES:
                break  # the photo is gone: no retry
        except http.client.InvalidURL as e:
            error = f'invalid URL: {e}'
            break  # the same URL fails the same way
        except (urllib.error.URLError, OSError, ValueError,
                http.client.HTTPException) as e:
            # HTTPException: a bad status line, a header line over
            # http.client's limit, too many headers, a cut-off body
            error = f'{type(e).__name__}: {_short(getattr(e, "reason", e))}'
    if osp.exists(part):
        os.remove(part)
    return error, attempt


def _short(text, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    text = ' '.join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + '...'


def write_tsv(path: str, header: List[str], rows: List[List]) -> None:
    with open(path, 'w', encoding='utf-8', newline='') as f:
        writer = csv.writer(f, delimiter='\t', lineterminator='\n')
        writer.writerow(header)
        writer.writerows(rows)


def download_birds_to_words(tsv_dir: str, out_dir: str,
                            image_name: str = DEFAULT_IMAGE_NAME,
                            image_dir: str = 'images', workers: int = 8,
                            retries: int = 4, backoff: float = 1.0,
                            timeout: float = 30.0) -> Dict:
    """Fetch the images of the TSV(s) into ``out_dir`` (see the module).

    Args:
        tsv_dir (str): A folder of TSVs, or one TSV file.
        out_dir (str): The data root to fill: the TSVs and ``image_dir``.
        image_name (str): The loader's ``image_name`` template.
        image_dir (str): The image folder under ``out_dir``.
        workers (int): Parallel downloads.
        retries (int): Further attempts after a failed one.
        backoff (float): Seconds before the first retry, doubled for each
            further one.
        timeout (float): Seconds one attempt at a file may take in all
            (connection, headers and body).

    Returns:
        dict: ``images``, ``pairs``, ``tsvs`` (counts), ``image_dir``,
        ``fetched`` (images fetched now), ``failures`` (``[url, file,
        attempts, error]`` rows), ``missing_pairs`` (``[tsv, split, url1,
        url2, files]`` rows), the two report files and ``no_connection``
        (``{host: error}`` of each host given up: its first
        :data:`NO_CONNECTION_STOP` images all failed to connect, so its
        others were not tried).
    """
    paths = tsv_files(tsv_dir)
    file_of, pairs = read_tsvs(paths, image_name)
    image_dir = osp.join(out_dir, image_dir)
    os.makedirs(image_dir, exist_ok=True)
    for path in paths:
        target = osp.join(out_dir, osp.basename(path))
        if not (osp.exists(target) and osp.samefile(path, target)):
            shutil.copyfile(path, target)

    url_of = {}  # one URL per file (URLs differing in the query: one image)
    for url, name in file_of.items():
        url_of.setdefault(name, url)
    todo, present = [], 0
    for name, url in url_of.items():
        dest = osp.join(image_dir, name)
        if osp.isfile(dest) and image_problem(dest) is None:
            present += 1
        else:
            todo.append((name, url))
    print_log(f'{len(url_of)} images of {len(pairs)} pairs in {len(paths)} '
              f'TSV(s): {present} already in {image_dir}, {len(todo)} to '
              'fetch', logger='current')

    failures, no_connection = [], {}  # host -> the error that gave it up
    unreachable = {}  # host -> its images tried, all failed to connect
    stop_after = max(NO_CONNECTION_STOP, 2 * workers)
    if todo:
        bar = ProgressBar(len(todo))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            jobs = {}
            for name, url in todo:
                dest = osp.join(image_dir, name)
                os.makedirs(osp.dirname(dest), exist_ok=True)
                jobs[pool.submit(download, url, dest, retries, backoff,
                                 timeout)] = (name, url)
            for job in as_completed(jobs):
                name, url = jobs[job]
                host = urllib.parse.urlsplit(url).netloc
                if job.cancelled():
                    error, attempts = (f'not tried: the first {stop_after} '
                                       f'images of {host} all failed to '
                                       'connect'), 0
                else:
                    try:
                        error, attempts = job.result()
                    except Exception as e:  # one URL never ends the run
                        error = f'{type(e).__name__}: {_short(e)}'
                        attempts = 1
                    tried = unreachable.get(host, 0)
                    if tried is not None:
                        tried = (tried + 1 if (error or '').startswith(
                            'URLError:') else None)  # None: it connected
                        unreachable[host] = tried
                    if tried == stop_after:  # give the host up
                        no_connection[host] = error
                        for other, (_, other_url) in jobs.items():
                            if urllib.parse.urlsplit(other_url).netloc == host:
                                other.cancel()
                if error is not None:
                    failures.append([url, name, attempts, error])
                bar.update()
        bar.file.write('\n')
    failures.sort()
    failed_files = {name for _, name, _, _ in failures}
    failure_report = osp.join(out_dir, 'download_failures.tsv')
    write_tsv(failure_report, ['url', 'file', 'attempts', 'error'], failures)

    missing_pairs = []
    for tsv, split, url1, url2 in pairs:
        missing = [file_of[u] for u in (url1, url2)
                   if file_of[u] in failed_files]
        if missing:
            missing_pairs.append([tsv, split, url1, url2, ' '.join(missing)])
    pair_report = osp.join(out_dir, 'missing_pairs.tsv')
    write_tsv(pair_report, ['tsv', 'split', 'img1ImgURL', 'img2ImgURL',
                            'missing_files'], missing_pairs)

    return dict(images=len(url_of), pairs=len(pairs), tsvs=len(paths),
                image_dir=image_dir, fetched=len(todo) - len(failures),
                failures=failures, missing_pairs=missing_pairs,
                failure_report=failure_report, pair_report=pair_report,
                no_connection=no_connection)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Download the Birds-to-Words photos into '
        "BirdsToWordsDataset's layout")
    parser.add_argument('tsv_dir', metavar='TSV_DIR', help='folder of the '
                        'TSV(s) (birds-to-words-v1.0.tsv), or one TSV file')
    parser.add_argument('out_dir', metavar='OUT_DIR', help='the data root to '
                        'fill: the TSVs and images/')
    parser.add_argument('--image-name', default=DEFAULT_IMAGE_NAME,
                        help="the loader's image_name template "
                        '(default: %(default)s)')
    parser.add_argument('--image-dir', default='images', help='image folder '
                        'under OUT_DIR (default: %(default)s)')
    parser.add_argument('--workers', type=int, default=8,
                        help='parallel downloads (default: %(default)s)')
    parser.add_argument('--retries', type=int, default=4,
                        help='further attempts after a failed one')
    parser.add_argument('--backoff', type=float, default=1.0,
                        help='seconds before the first retry, doubled for '
                        'each further one')
    parser.add_argument('--timeout', type=float, default=30.0,
                        help='seconds one attempt at a file may take in all '
                        '(connection, headers and body; default: '
                        '%(default)s)')
    args = parser.parse_args(argv)
    try:
        check_image_name(args.image_name)
    except ValueError as e:
        parser.error(f'--image-name: {e}')
    if args.workers < 1 or args.retries < 0 or args.backoff < 0:
        parser.error('--workers must be >= 1, --retries and --backoff >= 0')
    if not args.timeout > 0:
        parser.error(f'--timeout must be > 0, got {args.timeout}')
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    r = download_birds_to_words(args.tsv_dir, args.out_dir, args.image_name,
                                args.image_dir, args.workers, args.retries,
                                args.backoff, args.timeout)
    failures = r['failures']
    print(f'{r["images"] - len(failures)} of {r["images"]} images in '
          f'{r["image_dir"]} ({r["fetched"]} fetched now); '
          f'{len(failures)} failed: {r["failure_report"]}', flush=True)
    for host, error in r['no_connection'].items():
        print(f'no image could be fetched from {host}: the first '
              f'{max(NO_CONNECTION_STOP, 2 * args.workers)} all failed to '
              f'connect ({error}), so its other images were not tried: check '
              'the network connection (a proxy is read from HTTPS_PROXY / '
              'HTTP_PROXY) and run again')
    if failures:
        for url, _, attempts, error in failures[:5]:
            print(f'  {url}: {error} ({attempts} attempts)')
        print(f'{len(r["missing_pairs"])} of {r["pairs"]} pairs miss an image: '
              f'{r["pair_report"]}; run again to retry, or build the data set '
              'with skip_missing_images=True to leave them out')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
