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
- Each download is checked: size, first bytes and end marker, then decoded
  by PIL (``verify``). A failed fetch is retried (``--retries`` more times,
  waiting ``--backoff * 2**k`` seconds), except for HTTP 4xx answers other
  than 408 and 429 (a deleted photo stays deleted).
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
import os
import os.path as osp
import shutil
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Dict, List, Optional, Tuple

from mmengine.utils import ProgressBar
from PIL import Image

from mmidc.datasets.birds_to_words import (DEFAULT_IMAGE_NAME,
                                           BirdsToWordsDataset,
                                           check_image_name,
                                           image_file_problem,
                                           map_image_files)

USER_AGENT = 'mmidc-birds-to-words-download'
#: HTTP statuses worth another attempt (time-outs, rate limits, server errors)
RETRY_STATUSES = {408, 429}
MAX_IMAGE_BYTES = 64 << 20


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
                        help='seconds a connection may stall')
    args = parser.parse_args(argv)
    try:
        check_image_name(args.image_name)
    except ValueError as e:
        parser.error(f'--image-name: {e}')
    if args.workers < 1 or args.retries < 0 or args.backoff < 0:
        parser.error('--workers must be >= 1, --retries and --backoff >= 0')
    return args


def tsv_files(tsv_dir: str) -> List[str]:
    """The TSV file given, or every ``*.tsv`` of the folder."""
    if osp.isfile(tsv_dir):
        return [tsv_dir]
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
    """What is wrong with an image file (cheap check, then PIL's
    ``verify``), or None."""
    problem = image_file_problem(path)
    if problem:
        return problem
    try:
        with Image.open(path) as img:
            img.verify()
    except Exception as e:  # PIL raises many types for bad files
        return f'does not decode ({type(e).__name__}: {e})'
    return None


def fetch_once(url: str, part: str, timeout: float) -> None:
    """Write the body of ``url`` to ``part``; raises on any failure."""
    request = urllib.request.Request(url, headers={'User-Agent': USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response, \
            open(part, 'wb') as f:
        size = 0
        while True:
            chunk = response.read(1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_IMAGE_BYTES:
                raise ValueError(f'larger than {MAX_IMAGE_BYTES >> 20} MiB')
            f.write(chunk)


def download(url: str, dest: str, retries: int, backoff: float,
             timeout: float) -> Tuple[Optional[str], int]:
    """Fetch ``url`` to ``dest`` (atomically, checked), with retries.

    Returns:
        tuple: the last error (None on success) and the number of attempts.
    """
    if not url.lower().startswith(('http://', 'https://')):
        return 'not an http(s) URL', 0
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
        except (urllib.error.URLError, OSError, ValueError) as e:
            error = f'{type(e).__name__}: {getattr(e, "reason", e)}'
    if osp.exists(part):
        os.remove(part)
    return error, attempt


def write_tsv(path: str, header: List[str], rows: List[List]) -> None:
    with open(path, 'w', encoding='utf-8', newline='') as f:
        writer = csv.writer(f, delimiter='\t', lineterminator='\n')
        writer.writerow(header)
        writer.writerows(rows)


def main(argv=None) -> int:
    args = parse_args(argv)
    paths = tsv_files(args.tsv_dir)
    file_of, pairs = read_tsvs(paths, args.image_name)
    image_dir = osp.join(args.out_dir, args.image_dir)
    os.makedirs(image_dir, exist_ok=True)
    for path in paths:
        target = osp.join(args.out_dir, osp.basename(path))
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
    print(f'{len(url_of)} images of {len(pairs)} pairs in {len(paths)} '
          f'TSV(s): {present} already in {image_dir}, {len(todo)} to fetch',
          flush=True)

    failures = []
    if todo:
        bar = ProgressBar(len(todo))
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            jobs = {}
            for name, url in todo:
                dest = osp.join(image_dir, name)
                os.makedirs(osp.dirname(dest), exist_ok=True)
                jobs[pool.submit(download, url, dest, args.retries,
                                 args.backoff, args.timeout)] = (name, url)
            for job in as_completed(jobs):
                name, url = jobs[job]
                error, attempts = job.result()
                if error is not None:
                    failures.append([url, name, attempts, error])
                bar.update()
        bar.file.write('\n')
    failures.sort()
    failed_files = {name for _, name, _, _ in failures}
    failure_report = osp.join(args.out_dir, 'download_failures.tsv')
    write_tsv(failure_report, ['url', 'file', 'attempts', 'error'], failures)

    missing_pairs = []
    for tsv, split, url1, url2 in pairs:
        missing = [file_of[u] for u in (url1, url2)
                   if file_of[u] in failed_files]
        if missing:
            missing_pairs.append([tsv, split, url1, url2, ' '.join(missing)])
    pair_report = osp.join(args.out_dir, 'missing_pairs.tsv')
    write_tsv(pair_report, ['tsv', 'split', 'img1ImgURL', 'img2ImgURL',
                            'missing_files'], missing_pairs)

    print(f'{len(url_of) - len(failures)} of {len(url_of)} images in '
          f'{image_dir} ({len(todo) - len(failures)} fetched now); '
          f'{len(failures)} failed: {failure_report}', flush=True)
    if failures:
        for url, _, attempts, error in failures[:5]:
            print(f'  {url}: {error} ({attempts} attempts)')
        print(f'{len(missing_pairs)} of {len(pairs)} pairs miss an image: '
              f'{pair_report}; run again to retry, or build the data set '
              'with skip_missing_images=True to leave them out')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
