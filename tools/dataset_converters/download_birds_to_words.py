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
  goes on with the other URLs.
- ``OUT_DIR/download_failures.tsv``: each URL that could not be fetched,
  with its file, the number of attempts and the last error.
- ``OUT_DIR/missing_pairs.tsv``: each pair (TSV, split, both URLs) with a
  missing image and the missing files. Train with
  ``skip_missing_images=True`` (the shipped Birds-to-Words configs do) to
  leave those pairs out.

The exit status is 0 when every image is there, 1 otherwise.
"""
import argparse
import sys

from mmidc.datasets.birds_to_words import DEFAULT_IMAGE_NAME, check_image_name
from mmidc.datasets.birds_to_words_download import download_birds_to_words


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
    if failures:
        for url, _, attempts, error in failures[:5]:
            print(f'  {url}: {error} ({attempts} attempts)')
        print(f'{len(r["missing_pairs"])} of {r["pairs"]} pairs miss an image: '
              f'{r["pair_report"]}; run again to retry, or build the data set '
              'with skip_missing_images=True to leave them out')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
