"""Where pairs to caption come from: a JSONL file, a folder, a data set.

Folder naming scheme (:func:`pairs_from_folder`), either of:

- ``NAME_before.EXT`` + ``NAME_after.EXT`` in one folder (also ``-before``
  / ``-after``), or
- ``before/NAME.EXT`` + ``after/NAME.EXT`` (same file name in two
  subfolders), or
- ``A/NAME.EXT`` + ``B/NAME.EXT``, the remote-sensing layout (LEVIR-CC's
  ``images/test/``: ``A`` before, ``B`` after; other subfolders such as
  ``label/`` are ignored).

``EXT`` is any of ``.png .jpg .jpeg .bmp .webp .tif .tiff`` (case-insensitive,
may differ between the two images); the pair id is ``NAME``. Sub-folders are
searched too, each under the same scheme (``before/``/``after/`` and
``A/``/``B/`` holding sub-folders of their own as well): a pair found below
the folder has the path from the folder as its id (``site1/NAME``,
``test/NAME`` for LEVIR-CC's ``images/`` with ``train/ val/ test/``).
Folders whose name starts with a dot are skipped. A folder with
``before/`` + ``after/`` (or ``A/`` + ``B/``) is read from them only: its own
``NAME_before`` / ``NAME_after`` images are named in a warning. Two images
for one side of a pair (``x.png`` and ``x.jpg``, or one id from two schemes)
are a warning naming the one kept.
"""
import logging
import os.path as osp
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mmengine.logging import print_log

from mmidc.datasets.image_pair_dataset import read_pair_records

IMAGE_EXTENSIONS = ('.png', '.jpg', '.jpeg', '.bmp', '.webp', '.tif', '.tiff')
#: Subfolder pairs (before, after) :func:`pairs_from_folder` reads, in order.
SUBFOLDERS = (('before', 'after'), ('A', 'B'))
_SIDE = re.compile(r'^(?P<name>.+)[_-](?P<side>before|after)$', re.IGNORECASE)


@dataclass
class PairRecord:
    """One pair to caption: ids, image paths and (optional) references."""
    pair_id: str
    img1: str
    img2: str
    captions: List[str] = field(default_factory=list)


def pairs_from_jsonl(ann_file: str, data_root: str = '') -> List[PairRecord]:
    """Read pairs in :class:`~mmidc.datasets.ImagePairDataset`'s format.

    A ``.jsonl`` file (one object a line) or a ``.json`` list of
    ``{"img1": ..., "img2": ..., "captions": [...], "pair_id": ...}``;
    ``captions`` and ``pair_id`` are optional here (default id: the record's
    position). Relative image paths are joined with ``data_root``.
    """
    pairs = []
    for index, (where, record) in enumerate(read_pair_records(ann_file)):
        if not isinstance(record, dict) or not {'img1', 'img2'} <= set(record):
            raise ValueError(f'{ann_file}: {where} needs the keys "img1" and '
                             f'"img2"')
        captions = record.get('captions', [])
        if isinstance(captions, str):
            captions = [captions]
        pairs.append(PairRecord(
            str(record.get('pair_id', index)),
            osp.join(data_root, record['img1']),
            osp.join(data_root, record['img2']), list(captions)))
    return pairs


def pairs_from_folder(folder: str) -> List[PairRecord]:
    """Pairs in a folder and its sub-folders under the naming scheme of
    this module's doc.

    Args:
        folder (str): The folder.

    Returns:
        list[PairRecord]: The pairs, sorted by id (the path from ``folder``
        without the extension, ``/``-separated).

    Raises:
        NotADirectoryError: ``folder`` is not a folder.
        ValueError: No pair anywhere under it.
    """
    root = Path(folder)
    if not root.is_dir():
        raise NotADirectoryError(f'not a folder: {folder}')
    befores: Dict[str, Path] = {}
    afters: Dict[str, Path] = {}
    clashes: List[str] = []  # 'kept (not: other)' per side of a pair
    unread: List[Path] = []  # NAME_before/after beside before/ + after/

    def put(side: Dict[str, Path], key: str, path: Path) -> None:
        if key in side:
            clashes.append(f'{path.relative_to(root).as_posix()} (not: '
                           f'{side[key].relative_to(root).as_posix()})')
        side[key] = path

    todo = [root]
    while todo:
        current = todo.pop()
        prefix = current.relative_to(root).as_posix()
        prefix = '' if prefix == '.' else prefix + '/'
        subfolders = next(((b, a) for b, a in SUBFOLDERS
                           if (current / b).is_dir()
                           and (current / a).is_dir()), None)
        for path in sorted(current.iterdir()):
            match = _SIDE.match(path.stem)
            if not (match and path.suffix.lower() in IMAGE_EXTENSIONS
                    and path.is_file()):
                continue
            if subfolders:
                unread.append(path)
            else:
                put(befores if match['side'].lower() == 'before' else afters,
                    prefix + match['name'], path)
        if subfolders:
            for side, name in zip((befores, afters), subfolders):
                for stem, path in _images_by_stem(current / name):
                    put(side, prefix + stem, path)
        todo.extend(sorted(
            (path for path in current.iterdir()
             if path.is_dir() and not path.name.startswith('.')
             and (subfolders is None or path.name not in subfolders)),
            reverse=True))
    if unread:
        print_log(
            f'{folder}: {len(unread)} image(s) named NAME_before / NAME_after '
            f'not read: '
            f'{", ".join(p.relative_to(root).as_posix() for p in unread[:5])}'
            f'; a folder with before/ + after/ (or A/ + B/) sub-folders is '
            f'read from them only: move these into a sub-folder of their own',
            logger='current', level=logging.WARNING)
    if clashes:
        print_log(
            f'{folder}: {len(clashes)} image(s) for a side of a pair that '
            f'already had one (the same name with another extension, or the '
            f'same pair id from two naming schemes); the one kept: '
            f'{", ".join(clashes[:5])}', logger='current',
            level=logging.WARNING)
    names = sorted(set(befores) & set(afters))
    unmatched = sorted(set(befores) ^ set(afters))
    if unmatched:
        print_log(f'{folder}: {len(unmatched)} image(s) without a partner '
                  f'skipped: {", ".join(unmatched[:5])}', logger='current',
                  level=logging.WARNING)
    if not names:
        raise ValueError(
            f'{folder}: no pairs found; name them NAME_before.png + '
            f'NAME_after.png, or put them in before/ and after/ (or A/ and '
            f'B/) subfolders (sub-folders are searched too)')
    return [PairRecord(n, str(befores[n]), str(afters[n])) for n in names]


def _images_by_stem(folder: Path) -> List[Tuple[str, Path]]:
    """The images under ``folder`` (its sub-folders too), each with its
    path from it without the extension, in sorted order (two images of one
    name with other extensions are both listed)."""
    found = []
    for path in sorted(folder.rglob('*')):
        relative = path.relative_to(folder)
        if path.suffix.lower() in IMAGE_EXTENSIONS and path.is_file() and \
                not any(part.startswith('.') for part in relative.parts):
            found.append((relative.with_suffix('').as_posix(), path))
    return found


def find_example_pairs(folder: str, limit: Optional[int] = 24,
                       split: str = 'test') -> List[PairRecord]:
    """Example pairs for the demo, from whatever ``folder`` holds.

    - a CLEVR-Change layout (``change_captions.json``; e.g. the synthetic
      set of ``tools/generate_synthetic_clevr_change.py``): the ``split``
      pairs, with their reference captions;
    - a ``pairs.jsonl`` / ``pairs.json`` / ``test.jsonl`` annotation file
      (ImagePairDataset format), paths relative to ``folder``;
    - otherwise the naming scheme of :func:`pairs_from_folder`.
    """
    root = Path(folder)
    if (root / 'change_captions.json').is_file():
        from mmidc.datasets import CLEVRChangeDataset
        dataset = CLEVRChangeDataset(data_root=str(root), split=split,
                                     pipeline=[])
        pairs = [PairRecord(d['pair_id'], d['img1_path'], d['img2_path'],
                            list(d['gt_captions']))
                 for d in (dataset.get_data_info(i)
                           for i in range(len(dataset)))]
    else:
        for name in ('pairs.jsonl', 'pairs.json', f'{split}.jsonl'):
            if (root / name).is_file():
                pairs = pairs_from_jsonl(str(root / name), str(root))
                break
        else:
            pairs = pairs_from_folder(str(root))
    return pairs[:limit] if limit else pairs
