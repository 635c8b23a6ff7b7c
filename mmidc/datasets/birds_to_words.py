"""Birds-to-Words (Forbes et al., EMNLP 2019), read as distributed."""
import csv
import io
import os.path as osp
from typing import Dict, List, Optional, Tuple
from urllib.parse import unquote, urlparse

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .annotation_checks import read_text
from .image_pair_dataset import ImagePairDataset

#: The columns of ``birds-to-words-v1.0.tsv``, in order.
BIRDS_TO_WORDS_COLUMNS = (
    'img1ObservationURL', 'img1ImgURL', 'img1Species', 'img1Selection',
    'img2ObservationURL', 'img2ImgURL', 'img2Species', 'img2Selection',
    'split', 'annN', 'description')


def url_fields(url: str) -> Dict[str, str]:
    """The parts of an image URL that ``image_name`` may use."""
    parsed = urlparse(url)
    path = unquote(parsed.path).lstrip('/')
    parts = [p for p in path.split('/') if p]
    basename = parts[-1] if parts else ''
    stem, ext = osp.splitext(basename)
    return dict(host=parsed.netloc, path=path, basename=basename, stem=stem,
                ext=ext, parent=parts[-2] if len(parts) > 1 else '')


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

    The images are URLs (``img1ImgURL``, ``img2ImgURL``). A URL maps to
    ``images/<the URL's last path component>`` by default, the layout other
    public loaders expect; ``image_name`` is a ``str.format`` template for
    other download layouts, with the fields ``host``, ``path`` (the URL path
    without its leading ``/``), ``basename``, ``stem``, ``ext`` and
    ``parent`` (the path component before the basename). For example
    ``'{host}/{path}'`` is the layout of ``wget --force-directories``, and
    ``'{parent}_{basename}'`` names ``.../photos/123/medium.jpg``
    ``123_medium.jpg``. Two different URLs that map to one file are an error
    naming both.

    The rows of one pair (same ``img1ImgURL`` and ``img2ImgURL``, up to five
    annotations ``annN``) become one sample whose ``gt_captions`` are their
    descriptions in ``annN`` order. ``pair_id`` is ``<file1 stem>_<file2
    stem>``; ``change_type`` is ``unknown`` (no distractors). Empty
    descriptions are dropped and counted in the log; a pair left with none,
    a row with another number of columns, an unknown split, or a pair in
    two splits is an error naming the file and line. A missing image fails
    when the data set is built, naming the file.

    Args:
        data_root (str): The Birds-to-Words root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The TSV, relative to ``data_root``. Defaults to
            ``'birds-to-words-v1.0.tsv'``.
        data_prefix (dict, optional): ``img_path``: the image folder
            relative to ``data_root``. Defaults to ``dict(img_path='images')``.
        image_name (str): Template of an image's file name under the image
            folder. Defaults to ``'{basename}'``.
        **kwargs: Other arguments of :class:`ImagePairDataset`.
    """

    SPLITS = ('train', 'val', 'test')

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'birds-to-words-v1.0.tsv',
                 data_prefix: Optional[dict] = None,
                 image_name: str = '{basename}',
                 **kwargs):
        if split not in self.SPLITS:
            raise ValueError(f'BirdsToWordsDataset: unknown split "{split}"; '
                             f'valid splits: {", ".join(self.SPLITS)}')
        try:
            image_name.format(**url_fields('https://host/a/b.jpg'))
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(f'BirdsToWordsDataset: image_name={image_name!r} '
                             f'is not a template of the fields host, path, '
                             f'basename, stem, ext, parent ({e!r})') from None
        self.split = split
        self.image_name = image_name
        super().__init__(ann_file=ann_file, data_root=data_root,
                         data_prefix=data_prefix or dict(img_path='images'),
                         **kwargs)

    def annotation_source(self) -> str:
        return f'{self.ann_file} ({self.split})'

    def read_rows(self) -> List[Tuple[int, Dict[str, str]]]:
        """``(line number, row)`` of every data row of the TSV."""
        if not osp.isfile(self.ann_file):
            raise FileNotFoundError(f'annotation file not found: {self.ann_file}')
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

    def image_file(self, url: str) -> str:
        """The file name of an image URL under the image folder."""
        return self.image_name.format(**url_fields(url))

    def parse_annotations(self) -> List[dict]:
        rows = self.read_rows()
        # URL -> file, over every split: a clash anywhere is an error
        file_of, url_of = {}, {}
        for line_no, row in rows:
            for key in ('img1ImgURL', 'img2ImgURL'):
                url = row[key]
                if url in file_of:
                    continue
                name = self.image_file(url)
                if not name:
                    raise ValueError(f'{self.ann_file}: line {line_no} {key} '
                                     f'{url!r} gives an empty file name with '
                                     f'image_name={self.image_name!r}')
                if name in url_of:
                    raise ValueError(
                        f'{self.ann_file}: the image URLs {url_of[name]!r} and '
                        f'{url!r} (line {line_no}) both map to the file '
                        f'{name!r} with image_name={self.image_name!r}; set '
                        "image_name to your download layout, e.g. "
                        "'{parent}_{basename}' or '{host}/{path}'")
                file_of[url], url_of[name] = name, url
        pairs: Dict[Tuple[str, str], dict] = {}
        num_empty = 0
        for line_no, row in rows:
            if row['split'] not in self.SPLITS:
                raise ValueError(f'{self.ann_file}: line {line_no} has split '
                                 f'"{row["split"]}", expected one of '
                                 f'{", ".join(self.SPLITS)}')
            key = (row['img1ImgURL'], row['img2ImgURL'])
            pair = pairs.setdefault(key, dict(split=row['split'], line=line_no,
                                              annotations=[]))
            if pair['split'] != row['split']:
                raise ValueError(
                    f'{self.ann_file}: line {line_no} puts the pair of line '
                    f'{pair["line"]} ({key[0]}, {key[1]}) in split '
                    f'"{row["split"]}", that line in "{pair["split"]}"')
            description = row['description'].strip()
            if not description:
                num_empty += 1
                continue
            try:
                order = int(row['annN'])
            except ValueError:
                raise ValueError(f'{self.ann_file}: line {line_no} has annN '
                                 f'{row["annN"]!r}, not a number') from None
            pair['annotations'].append((order, line_no, description))
        img_dir = self.data_prefix['img_path']
        data_list = []
        for (url1, url2), pair in pairs.items():
            if pair['split'] != self.split:
                continue
            if not pair['annotations']:
                raise ValueError(f'{self.ann_file}: the pair of line '
                                 f'{pair["line"]} ({url1}, {url2}) has no '
                                 'non-empty description')
            name1, name2 = file_of[url1], file_of[url2]
            stem1 = osp.splitext(name1.replace('/', '_'))[0]
            stem2 = osp.splitext(name2.replace('/', '_'))[0]
            data_list.append(dict(
                img1_path=osp.join(img_dir, name1),
                img2_path=osp.join(img_dir, name2),
                gt_captions=[d for _, _, d in sorted(pair['annotations'])],
                pair_id=f'{stem1}_{stem2}',
                change_type='unknown'))
        if num_empty:
            print_log(f'{self.ann_file}: dropped {num_empty} empty '
                      'descriptions', logger='current')
        return data_list
