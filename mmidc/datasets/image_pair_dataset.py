"""The generic image-pair data set and the "bring your own pairs" format."""
import json
import os
import os.path as osp
from collections import defaultdict
from typing import List, Optional, Sequence, Tuple

from mmengine.dataset import BaseDataset
from mmengine.logging import print_log
from mmidc.registry import DATASETS
from mmidc.utils.config_placeholders import has_placeholder
from .annotation_checks import (caption_list, check_not_empty, check_record,
                                has_words, load_json, read_text, str_field)
from .annotation_memo import load_once
from .image_io import image_decode_problem

__all__ = ['CHANGE_TYPES', 'ImagePairDataset', 'read_pair_records',
           'load_json', 'check_images_exist', 'verify_images']

#: CLEVR-Change's change types. A data sample may carry any other string as
#: well (``'change'``, ``'building'``, ...): each type gets its own scores.
#: ``none`` marks no-change pairs, ``unknown`` a pair whose change is not
#: labelled (scored in the total only).
CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move', 'none', 'unknown')
#: Change types that look like a no-change mark but are not ``'none'``
#: (lower-cased, letters and digits only): read as change types, so a
#: warning names them.
NO_CHANGE_LOOK_ALIKES = ('none', 'nochange', 'nochanges', 'unchanged',
                         'nodifference', 'same', 'distractor')


@DATASETS.register_module()
class ImagePairDataset(BaseDataset):
    """Before/after image pairs with reference captions.

    This is both the base of the benchmark loaders and the format for your
    own data: ``ann_file`` is a JSON list, or a JSONL file (one object a
    line), of records::

        {"img1": "before/0001.png", "img2": "after/0001.png",
         "captions": ["the red cube is gone"],
         "pair_id": "0001",           # optional, default: the record index
         "change_type": "drop"}       # optional, default: "unknown"

    Image paths are relative to ``data_root`` joined with
    ``data_prefix['img_path']`` (absolute paths are kept). Every entry of
    ``data_list`` follows ``docs/design.md``: ``img1_path``, ``img2_path``,
    ``gt_captions``, ``pair_id`` and ``change_type``; samples also carry the
    data set's ``data_root``.

    The annotations are validated when the data set is built (``full_init``),
    not mid-epoch: every image must exist (and decode, with
    ``verify_images=True``), caption lists must be non-empty with no caption
    that is empty or has no word (``"!!!"``, ``"🙂"``: no letter or digit,
    :func:`~mmidc.datasets.annotation_checks.has_words`), pair ids unique
    and change types non-empty strings (any name; :data:`CHANGE_TYPES` are
    CLEVR-Change's); an empty split, a file that is not UTF-8 and a field of
    the wrong type (:mod:`~mmidc.datasets.annotation_checks`) are errors
    too. Each error names the file and the key or record index.

    Args:
        ann_file (str): The JSON or JSONL annotation file, relative to
            ``data_root`` unless absolute. Records of a ``.jsonl`` file are
            one a line; any other extension is read as one JSON list.
        data_root (str): Root folder of the data set. Defaults to ''.
        data_prefix (dict): ``img_path``: folder of the images, relative to
            ``data_root``. Defaults to ``dict(img_path='')``.
        verify_images (bool): Also decode every image in full at build time,
            as the pipeline decodes it (slow on large sets: off by default;
            existence is always checked). Defaults to False.
        **kwargs: Other arguments of :class:`mmengine.dataset.BaseDataset`
            (``pipeline``, ``lazy_init``, ``indices``, ``test_mode``, ...).
    """

    METAINFO = dict(change_types=CHANGE_TYPES)
    #: The splits of a reader that takes ``split``.
    SPLITS = ('train', 'val', 'test')

    def __init__(self,
                 ann_file: str = '',
                 data_root: str = '',
                 data_prefix: Optional[dict] = None,
                 verify_images: bool = False,
                 **kwargs):
        if has_placeholder(data_root):
            raise ValueError(
                f'{type(self).__name__}: data_root={data_root!r} is a '
                'placeholder the config did not fill: fill it from the '
                "config's top-level data_root with mmidc.runtime.data_root."
                'apply_data_root(cfg, config_file) before Runner.from_cfg '
                '(tools/train.py and tools/test.py do)')
        if 'split' in kwargs:  # a reader with splits takes it before this
            raise ValueError(
                f'{type(self).__name__} takes no split (got '
                f"split={kwargs['split']!r}): it reads the one annotation "
                "file ann_file names, relative to data_root: "
                f"ann_file='{kwargs['split']}.jsonl' (the data tools: "
                f"--dataset-options ann_file={kwargs['split']}.jsonl)")
        if data_prefix is None:
            data_prefix = dict(img_path='')
        self.verify_images = verify_images
        super().__init__(
            ann_file=ann_file,
            data_root=data_root,
            data_prefix=data_prefix,
            **kwargs)

    def set_split(self, split: str, hint: str = '') -> None:
        """Keep ``split``, or raise a ``ValueError`` naming the valid ones
        (and ``hint``)."""
        if split not in self.SPLITS:
            raise ValueError(f'{type(self).__name__}: unknown split "{split}"; '
                             f'valid splits: {", ".join(self.SPLITS)}{hint}')
        self.split = split

    # ------------------------------------------------------------------
    # Loading: subclasses override ``parse_annotations``.
    # ------------------------------------------------------------------
    def load_data_list(self) -> List[dict]:
        """Parse the annotations, then validate them (fail fast); once per
        start-up (:mod:`~mmidc.datasets.annotation_memo`). A pipeline step
        that reads captions from a file of its own (``SampleHardNegatives``)
        then checks that the file holds them."""
        data_list = load_once(self, self._read_annotations)
        for step in getattr(self.pipeline, 'transforms', []):
            if hasattr(step, 'check_dataset_captions'):
                step.check_dataset_captions(
                    [c for entry in data_list for c in entry['gt_captions']],
                    self.annotation_source())
        return data_list

    def _read_annotations(self) -> List[dict]:
        data_list = self.parse_annotations()
        check_not_empty(data_list, self.annotation_source())
        self.validate_data_list(data_list, source=self.annotation_source())
        return data_list

    def annotation_source(self) -> str:
        """The file(s) the entries come from, for error messages."""
        return self.ann_file

    def parse_annotations(self) -> List[dict]:
        """Read the "bring your own pairs" JSON / JSONL file."""
        if not self.ann_file:
            raise ValueError(
                f'{type(self).__name__} (data_root {self.data_root!r}): no '
                "ann_file given; name the split's annotation file, relative "
                "to data_root: ann_file='train.jsonl' (the data tools: "
                '--dataset-options ann_file=train.jsonl)')
        records = read_pair_records(self.ann_file)
        img_dir = self.data_prefix.get('img_path', '')
        data_list = []
        for index, (where, record) in enumerate(records):
            where = f'{self.ann_file}: {where}'
            check_record(record, where, ('img1', 'img2', 'captions'))
            img1, img2 = (str_field(record[key], where, key)
                          for key in ('img1', 'img2'))
            data_list.append(
                dict(
                    img1_path=osp.join(img_dir, img1),
                    img2_path=osp.join(img_dir, img2),
                    gt_captions=caption_list(record['captions'], where,
                                             'captions'),
                    pair_id=str_field(record.get('pair_id', index), where,
                                      'pair_id', allow_int=True),
                    change_type=str_field(
                        record.get('change_type', 'unknown'), where,
                        'change_type')))
        return data_list

    # ------------------------------------------------------------------
    # Validation, shared by every data set.
    # ------------------------------------------------------------------
    def validate_data_list(self, data_list: List[dict], source: str) -> None:
        """Check captions, ids, change types and image files.

        Args:
            data_list (list[dict]): Entries in the design contract.
            source (str): The annotation file(s), named in errors.
        """
        seen = {}
        for index, entry in enumerate(data_list):
            pair_id = entry['pair_id']
            where = f'{source}: pair "{pair_id}" (entry {index})'
            if pair_id in seen:
                raise ValueError(f'{source}: pair id "{pair_id}" is used by '
                                 f'entries {seen[pair_id]} and {index}; pair '
                                 f'ids must be unique within a split')
            seen[pair_id] = index
            self.check_captions(entry['gt_captions'], where)
            change_type = entry['change_type']
            if not isinstance(change_type, str) or change_type in ('', 'total') \
                    or change_type != change_type.strip():
                raise ValueError(
                    f'{where} has change_type {change_type!r}: a change type '
                    "is a non-empty string without surrounding spaces, other "
                    "than 'total' (any name: 'color', 'change', 'building'; "
                    "'none' for a no-change pair, 'unknown' when not "
                    'labelled)')
        warn_no_change_look_alikes(data_list, source)
        paths = [e[k] for e in data_list for k in ('img1_path', 'img2_path')]
        check_images_exist(paths, source)
        if self.verify_images:
            verify_images(paths)

    def check_captions(self, captions: List[str], where: str) -> None:
        """Raise a ``ValueError`` naming ``where`` if a pair's caption list
        is empty or holds a caption that is empty, has no word or is not a
        string. A reader that keeps its references as distributed (empty
        sentences included: :class:`~mmidc.datasets.SpotTheDiffDataset` on
        val and test) overrides it."""
        if not captions:
            raise ValueError(f'{where} has an empty caption list')
        for k, caption in enumerate(captions):
            if not isinstance(caption, str) or not has_words(caption):
                raise ValueError(
                    f'{where}: caption {k} is empty, has no word (no '
                    f'letter or digit) or is not a string ({caption!r})')

    def get_data_info(self, idx: int) -> dict:
        """The ``data_list`` entry of pair ``idx`` (no image loading), with
        the data set's ``data_root`` (``LoadImagePair`` finds the image cache
        under it)."""
        info = super().get_data_info(idx)
        info['data_root'] = self.data_root
        return info


def warn_no_change_look_alikes(data_list: List[dict], source: str) -> None:
    """Log a warning for each change type that looks like a no-change mark
    (``'no_change'``, ``'None'``, ``'unchanged'``...) but is not
    ``'none'``: its pairs are scored as change pairs."""
    counts = defaultdict(int)
    for entry in data_list:
        change_type = entry['change_type']
        if change_type != 'none' and isinstance(change_type, str) and \
                ''.join(c for c in change_type.lower() if c.isalnum()) \
                in NO_CHANGE_LOOK_ALIKES:
            counts[change_type] += 1
    for change_type, count in counts.items():
        print_log(
            f'{source}: change_type {change_type!r} ({count} pair(s)) is read '
            "as a change type, so its pairs are scored among the change pairs; "
            "a pair without change has change_type 'none'", logger='current',
            level=30)


def _refuse_json_list(ann_file: str, text: str) -> None:
    """Raise a ``ValueError`` naming the fix when the text of the ``.jsonl``
    file ``ann_file`` is one JSON list (``json.dump`` of the records)."""
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError:
        return
    if isinstance(loaded, list):
        name = osp.splitext(osp.basename(ann_file))[0] + '.json'
        raise ValueError(
            f'{ann_file}: the file holds one JSON list, but a .jsonl file is '
            'read as one object a line: write one record a line, or give the '
            f"file a name ending in .json (ann_file='{name}'), which is read "
            'as one JSON list')


def read_pair_records(ann_file: str) -> List[Tuple[str, object]]:
    """Read the records of a "bring your own pairs" file: a JSON list, or
    JSONL (one object a line; blank lines skipped) when the name ends with
    ``.jsonl``. Shared by :class:`ImagePairDataset` and the inference tools
    (:func:`mmidc.apis.pair_sources.pairs_from_jsonl`), which check the
    records' keys each for its own needs.

    Returns:
        list[tuple[str, object]]: ``(where, record)``, ``where`` naming the
        line or the list index for error messages.

    Raises:
        FileNotFoundError: ``ann_file`` does not exist.
        ValueError: invalid JSON (naming the line) or not a JSON list.
    """
    text = read_text(ann_file)
    if ann_file.endswith('.jsonl'):
        records = []
        for line_no, line in enumerate(text.split('\n'), start=1):
            if not line.strip():
                continue
            try:
                records.append((f'line {line_no}', json.loads(line)))
            except json.JSONDecodeError as e:
                _refuse_json_list(ann_file, text)
                raise ValueError(f'{ann_file}: line {line_no} is not '
                                 f'valid JSON ({e.msg})') from e
        if len(records) == 1 and isinstance(records[0][1], list):
            _refuse_json_list(ann_file, text)
        return records
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as e:
        # 'Extra data': a whole value, then more (one record a line)
        hint = ('; use a .jsonl extension for one record a line'
                if e.msg == 'Extra data' else '')
        raise ValueError(f'{ann_file}: not valid JSON ({e}){hint}')
    if not isinstance(loaded, list):
        raise ValueError(f'{ann_file}: expected a JSON list of records, '
                         f'got {type(loaded).__name__}')
    return [(f'record {i}', r) for i, r in enumerate(loaded)]


def _repeated_folder_hint(folder: str) -> str:
    """A hint when ``folder`` names the same folders twice in a row
    (``data/x/data/x/before``): image paths written with the data root in
    front, which the data set puts in front again."""
    parts = [p for p in folder.replace('\\', '/').split('/') if p]
    for size in range(len(parts) // 2, 0, -1):
        for i in range(len(parts) - 2 * size + 1):
            if parts[i:i + size] == parts[i + size:i + 2 * size]:
                return ('. The path repeats ' + '/'.join(parts[i:i + size]) +
                        ': image paths in the annotation file are relative '
                        "to data_root (with data_prefix['img_path']); write "
                        'them without it')
    return ''


def check_images_exist(paths: Sequence[str], source: str) -> None:
    """Raise ``FileNotFoundError`` naming the first missing image.

    Lists each folder once instead of calling ``stat`` per file, which keeps
    the check fast on ~100k images and on network file systems.
    """
    by_dir = defaultdict(set)
    for path in dict.fromkeys(paths):  # unique, in order
        folder, name = osp.split(path)  # '/a.png' -> '/', not '.'
        by_dir[folder].add(name)
    for folder, names in by_dir.items():
        try:
            present = set(os.listdir(folder or '.'))
        except FileNotFoundError:
            raise FileNotFoundError(
                f'image folder not found: {folder} (images of {source}, '
                f'e.g. {osp.join(folder, sorted(names)[0])})'
                f'{_repeated_folder_hint(folder)}') from None
        missing = sorted(names - present)
        if missing:
            raise FileNotFoundError(
                f'image not found: {osp.join(folder, missing[0])} (named in '
                f'{source}; {len(missing)} missing in {folder})')


def verify_images(paths: Sequence[str]) -> None:
    """Check that every image decodes: PIL's ``verify()`` and a full decode
    as the pipeline's (:func:`~mmidc.datasets.image_io.image_decode_problem`;
    slow; with progress)."""
    unique = sorted(set(paths))
    print_log(f'verifying {len(unique)} images', logger='current')
    for i, path in enumerate(unique):
        problem = image_decode_problem(path)
        if problem is not None:
            raise OSError(f'corrupt or unreadable image: {path} ({problem})')
        if (i + 1) % 10000 == 0:
            print_log(f'verified {i + 1}/{len(unique)} images',
                      logger='current')
