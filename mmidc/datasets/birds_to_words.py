"""Birds-to-Words (Forbes et al., EMNLP 2019), read as distributed."""
import csv
import io
import logging
import os
import os.path as osp
from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import unquote, urlparse

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .annotation_checks import has_words, read_text
from .image_pair_dataset import ImagePairDataset

#: The columns of ``birds-to-words-v1.0.tsv``, in order.
BIRDS_TO_WORDS_COLUMNS = (
    'img1ObservationURL', 'img1ImgURL', 'img1Species', 'img1Selection',
    'img2ObservationURL', 'img2ImgURL', 'img2Species', 'img2Selection',
    'split', 'annN', 'description')

#: The default ``image_name``: host and path in one file name, unique for
#: the distributed URLs (many end in ``<photo id>/medium.jpg``).
DEFAULT_IMAGE_NAME = '{flat}'
IMAGE_NAME_FIELDS = ('host', 'path', 'basename', 'stem', 'ext', 'parent',
                     'flat')


def url_fields(url: str) -> Dict[str, str]:
    """The parts of an image URL that ``image_name`` may use: ``host``,
    ``path`` (without its leading ``/``), ``basename``, ``stem``, ``ext``,
    ``parent`` (the path component before the basename) and ``flat``.

    ``flat`` is the host (with ``_<port>`` when the URL names one) and the
    path, ``/`` replaced by ``_``:
    ``https://static.inaturalist.org/photos/123/medium.jpg?456`` gives
    ``static.inaturalist.org_photos_123_medium.jpg``. The query is never
    part of a name.
    """
    parsed = urlparse(url)
    path = unquote(parsed.path).lstrip('/')
    parts = [p for p in path.split('/') if p]
    basename = parts[-1] if parts else ''
    stem, ext = osp.splitext(basename)
    try:
        port = parsed.port
    except ValueError:
        port = None
    host = (parsed.hostname or '') + (f'_{port}' if port else '')
    flat = '_'.join([host] + parts) if host else '_'.join(parts)
    return dict(host=parsed.netloc, path=path, basename=basename, stem=stem,
                ext=ext, parent=parts[-2] if len(parts) > 1 else '',
                flat=flat)


def check_image_name(image_name: str) -> None:
    """Raise ``ValueError`` when ``image_name`` is not a template of the
    URL fields."""
    try:
        image_file_name('https://host/a/b.jpg', image_name)
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise ValueError(f'image_name={image_name!r} is not a template of '
                         f'the fields {", ".join(IMAGE_NAME_FIELDS)} '
                         f'({e!r})') from None


def image_file_name(url: str, image_name: str = DEFAULT_IMAGE_NAME) -> str:
    """The file of an image URL under the image folder: the loader's
    naming, and the names ``download_birds_to_words.py`` writes.

    Args:
        url (str): ``img1ImgURL`` or ``img2ImgURL``.
        image_name (str): ``str.format`` template of :func:`url_fields`.
            Defaults to :data:`DEFAULT_IMAGE_NAME`.
    """
    return image_name.format(**url_fields(url))


def _same_image(url1: str, url2: str) -> bool:
    """URLs that differ only in the query (iNaturalist's ``?<n>``) or the
    fragment name one image."""
    a, b = urlparse(url1), urlparse(url2)
    return a._replace(query='', fragment='') == b._replace(query='',
                                                           fragment='')


def map_image_files(urls: Iterable[Tuple[str, str]], image_name: str,
                    source: str) -> Dict[str, str]:
    """Map every image URL to its file name, checking the names.

    Args:
        urls: ``(where, url)``; ``where`` (e.g. ``'line 3 img1ImgURL'``)
            is named in errors.
        image_name (str): The naming template.
        source (str): The TSV, named in errors.

    Returns:
        dict[str, str]: URL -> file name, relative to the image folder.

    Raises:
        ValueError: a URL gives an empty, absolute or ``..`` name, or two
            different images map to one file (URLs differing only in the
            query are one image).
    """
    file_of, url_of = {}, {}
    for where, url in urls:
        if url in file_of:
            continue
        name = image_file_name(url, image_name)
        parts = name.replace('\\', '/').split('/')
        if not name or osp.isabs(name) or '..' in parts:
            raise ValueError(f'{source}: {where} {url!r} gives the file name '
                             f'{name!r} with image_name={image_name!r}; '
                             'expected a non-empty path inside the image '
                             'folder')
        other = url_of.get(name)
        if other is not None and not _same_image(other, url):
            raise ValueError(
                f'{source}: the image URLs {other!r} and {url!r} ({where}) '
                f'both map to the file {name!r} with '
                f'image_name={image_name!r}; set image_name to your '
                "download layout, e.g. '{flat}' or '{host}/{path}'")
        file_of[url] = name
        url_of.setdefault(name, url)
    return file_of


#: Leading bytes of the image formats PIL reads that photos come in.
_SIGNATURES = {b'\xff\xd8\xff': 'JPEG', b'\x89PNG\r\n\x1a\n': 'PNG',
               b'GIF87a': 'GIF', b'GIF89a': 'GIF', b'BM': 'BMP'}


def image_file_problem(path: str) -> Optional[str]:
    """A cheap check of an image file (its size, first bytes and, for JPEG
    and PNG, its end marker; no decoding): what is wrong with it, or None.

    Finds empty files, error pages saved as images and truncated
    downloads. Reads at most a few KiB per file.
    """
    try:
        size = os.path.getsize(path)
        with open(path, 'rb') as f:
            head = f.read(16)
            f.seek(max(0, size - 1024))
            tail = f.read()
    except OSError as e:
        return f'unreadable ({e.strerror or e})'
    if size == 0:
        return 'empty file'
    kind = next((k for sig, k in _SIGNATURES.items() if head.startswith(sig)),
                None)
    if kind is None and head[:4] == b'RIFF' and head[8:12] == b'WEBP':
        kind = 'WEBP'
    if kind is None:
        return f'not an image file (starts with {head[:8]!r})'
    if kind == 'JPEG' and b'\xff\xd9' not in tail:
        return 'truncated JPEG (no end-of-image marker)'
    if kind == 'PNG' and b'IEND' not in tail:
        return 'truncated PNG (no IEND chunk)'
    return None


def missing_files(paths: Sequence[str]) -> set:
    """The paths of ``paths`` that are not files (one ``listdir`` per
    folder)."""
    by_dir = defaultdict(set)
    for path in set(paths):
        by_dir[path.rpartition(os.sep)[0]].add(path)
    missing = set()
    for folder, group in by_dir.items():
        try:
            present = set(os.listdir(folder or '.'))
        except (FileNotFoundError, NotADirectoryError):
            present = set()
        missing.update(p for p in group if p.rpartition(os.sep)[2] not in present)
    return missing


@DATASETS.register_module()
class BirdsToWordsDataset(ImagePairDataset):
    """Birds-to-Words: pairs of bird photos with paragraphs comparing them.

    Layout of ``data_root``::

        birds-to-words-v1.0.tsv   11 tab-separated columns (header row):
                                  img1ObservationURL, img1ImgURL,
                                  img1Species, img1Selection,
                                  img2ObservationURL, img2ImgURL,
                                  img2Species, img2Selection, split, annN,
                                  description
        images/                   the photos, downloaded by the user

    The images are URLs (``img1ImgURL``, ``img2ImgURL``).
    ``tools/dataset_converters/download_birds_to_words.py`` downloads them
    in this loader's naming: ``images/<host>_<path with / as _>`` by
    default (``image_name='{flat}'``, :func:`url_fields`). ``image_name`` is
    a ``str.format`` template of the :func:`url_fields` for other download
    layouts (``'{host}/{path}'`` for ``wget --force-directories``; more in
    docs/datasets.md). Two different images (URLs that differ in more than
    the query) that map to one file are an error naming both.

    The rows of one pair (same ``img1ImgURL`` and ``img2ImgURL``, up to five
    annotations ``annN``) become one sample whose ``gt_captions`` are their
    descriptions in ``annN`` order. ``pair_id`` is ``<file1 stem>_<file2
    stem>``; ``change_type`` is ``unknown`` (no distractors). Empty
    descriptions and descriptions of only punctuation are dropped and
    counted in the log; a pair left with none, a row with another number of
    columns, an unknown split, or a pair in two splits is an error naming
    the file and line.

    The images of the split's pairs are checked when the data set is built:
    a missing image is an error naming the file, or, with
    ``skip_missing_images=True``, its pairs are left out and counted in the
    log (photos deleted from iNaturalist cannot be downloaded). Each image
    also gets a cheap check of its size, first bytes and end marker
    (:func:`image_file_problem`): an empty, non-image or truncated file is
    an ``OSError`` naming it (``verify_images=True`` decodes every image).

    Args:
        data_root (str): The Birds-to-Words root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The TSV, relative to ``data_root``. Defaults to
            ``'birds-to-words-v1.0.tsv'``.
        data_prefix (dict, optional): ``img_path``: the image folder
            relative to ``data_root``. Defaults to ``dict(img_path='images')``.
        image_name (str): Template of an image's file name under the image
            folder. Defaults to ``'{flat}'``.
        skip_missing_images (bool): Leave out the pairs whose images are
            missing (logged) instead of failing. Defaults to False.
        **kwargs: Other arguments of :class:`ImagePairDataset`.
    """

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'birds-to-words-v1.0.tsv',
                 data_prefix: Optional[dict] = None,
                 image_name: str = DEFAULT_IMAGE_NAME,
                 skip_missing_images: bool = False,
                 **kwargs):
        self.set_split(split)
        try:
            check_image_name(image_name)
        except ValueError as e:
            raise ValueError(f'BirdsToWordsDataset: {e}') from None
        self.image_name = image_name
        self.skip_missing_images = skip_missing_images
        super().__init__(ann_file=ann_file, data_root=data_root,
                         data_prefix=data_prefix or dict(img_path='images'),
                         **kwargs)

    def annotation_source(self) -> str:
        return f'{self.ann_file} ({self.split})'

    def read_rows(self) -> List[Tuple[int, Dict[str, str]]]:
        """``(line number, row)`` of every data row of the TSV."""
        rows = []
        with io.StringIO(read_text(self.ann_file), newline='') as f:
            reader = csv.reader(f, delimiter='\t', quoting=csv.QUOTE_NONE)
            for line_no, fields in enumerate(reader, start=1):
                if not fields or fields == ['']:
                    continue
                if line_no == 1 and tuple(fields) == BIRDS_TO_WORDS_COLUMNS:
                    continue  # the header
                if len(fields) != len(BIRDS_TO_WORDS_COLUMNS):
                    raise ValueError(
                        f'{self.ann_file}: line {line_no} has {len(fields)} '
                        f'tab-separated columns, expected '
                        f'{len(BIRDS_TO_WORDS_COLUMNS)} '
                        f'({", ".join(BIRDS_TO_WORDS_COLUMNS)})')
                rows.append((line_no, dict(zip(BIRDS_TO_WORDS_COLUMNS, fields))))
        return rows

    def parse_annotations(self) -> List[dict]:
        rows = self.read_rows()
        # URL -> file, over every split: a clash anywhere is an error
        file_of = map_image_files(
            ((f'line {line_no} {key}', row[key]) for line_no, row in rows
             for key in ('img1ImgURL', 'img2ImgURL')),
            self.image_name, self.ann_file)
        pairs: Dict[Tuple[str, str], dict] = {}
        for line_no, row in rows:
            if row['split'] not in self.SPLITS:
                raise ValueError(f'{self.ann_file}: line {line_no} has split '
                                 f'"{row["split"]}", expected one of '
                                 f'{", ".join(self.SPLITS)}')
            key = (row['img1ImgURL'], row['img2ImgURL'])
            pair = pairs.setdefault(key, dict(split=row['split'], line=line_no,
                                              annotations=[], empty=0))
            if pair['split'] != row['split']:
                raise ValueError(
                    f'{self.ann_file}: line {line_no} puts the pair of line '
                    f'{pair["line"]} ({key[0]}, {key[1]}) in split '
                    f'"{row["split"]}", that line in "{pair["split"]}"')
            description = row['description'].strip()
            if not has_words(description):
                pair['empty'] += 1
                continue
            try:
                order = int(row['annN'])
            except ValueError:
                raise ValueError(f'{self.ann_file}: line {line_no} has annN '
                                 f'{row["annN"]!r}, not a number') from None
            pair['annotations'].append((order, line_no, description))
        img_dir = self.data_prefix['img_path']
        data_list, num_empty = [], 0
        for (url1, url2), pair in pairs.items():
            if pair['split'] != self.split:
                continue
            num_empty += pair['empty']
            if not pair['annotations']:
                raise ValueError(f'{self.ann_file}: the pair of line '
                                 f'{pair["line"]} ({url1}, {url2}) has no '
                                 'non-empty description')
            name1, name2 = file_of[url1], file_of[url2]
            stem1, stem2 = (osp.splitext(n.replace('/', '_'))[0] for n in (name1, name2))
            data_list.append(dict(
                img1_path=osp.join(img_dir, name1),
                img2_path=osp.join(img_dir, name2),
                gt_captions=[d for _, _, d in sorted(pair['annotations'])],
                pair_id=f'{stem1}_{stem2}',
                change_type='unknown'))
        if num_empty:
            print_log(f'{self.annotation_source()}: dropped {num_empty} empty or '
                      'punctuation-only descriptions', logger='current')
        return self.check_pair_images(data_list)

    def check_pair_images(self, data_list: List[dict]) -> List[dict]:
        """The split's pairs, each image checked: missing ones skipped (with
        ``skip_missing_images``; otherwise :meth:`validate_data_list` fails
        naming the first), present ones given :func:`image_file_problem`.

        Raises:
            OSError: an image file fails the cheap check (naming it).
        """
        paths = [e[k] for e in data_list for k in ('img1_path', 'img2_path')]
        missing = missing_files(paths)
        if missing and self.skip_missing_images:
            kept = [e for e in data_list
                    if not {e['img1_path'], e['img2_path']} & missing]
            if not kept:
                raise FileNotFoundError(
                    f'{self.annotation_source()}: the images of all '
                    f'{len(data_list)} pairs are missing (e.g. '
                    f'{sorted(missing)[0]}); download them with '
                    'tools/dataset_converters/download_birds_to_words.py')
            print_log(f'{self.annotation_source()}: skipped '
                      f'{len(data_list) - len(kept)} of {len(data_list)} '
                      f'pairs whose images are missing ({len(missing)} '
                      f'images, e.g. {sorted(missing)[0]})',
                      logger='current', level=logging.WARNING)
            data_list = kept
        for path in sorted(set(paths) - missing):
            problem = image_file_problem(path)
            if problem:
                raise OSError(f'corrupt image: {path} ({problem}; named in '
                              f'{self.annotation_source()}); delete it and '
                              'download it again')
        return data_list
