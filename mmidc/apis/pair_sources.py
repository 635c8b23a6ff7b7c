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
Folders whose name starts with a dot are skipped.
"""
import logging
import os.path as osp
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

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
    todo = [root]
    while todo:
        current = todo.pop()
        prefix = current.relative_to(root).as_posix()
        prefix = '' if prefix == '.' else prefix + '/'
        subfolders = next(((b, a) for b, a in SUBFOLDERS
                           if (current / b).is_dir()
                           and (current / a).is_dir()), None)
        if subfolders:
            for side, name in zip((befores, afters), subfolders):
                side.update({prefix + stem: path for stem, path in
                             _images_by_stem(current / name).items()})
        else:
            for path in current.iterdir():
                match = _SIDE.match(path.stem)
                if match and path.suffix.lower() in IMAGE_EXTENSIONS \
                        and path.is_file():
                    side = befores if match['side'].lower() == 'before' \
                        else afters
                    side[prefix + match['name']] = path
        todo.extend(sorted(
            (path for path in current.iterdir()
             if path.is_dir() and not path.name.startswith('.')
             and (subfolders is None or path.name not in subfolders)),
            reverse=True))
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


def _images_by_stem(folder: Path) -> Dict[str, Path]:
    """The images under ``folder`` (its sub-folders too) by their path
    from it without the extension."""
    found = {}
    for path in sorted(folder.rglob('*')):
        relative = path.relative_to(folder)
        if path.suffix.lower() in IMAGE_EXTENSIONS and path.is_file() and \
                not any(part.startswith('.') for part in relative.parts):
            found[relative.with_suffix('').as_posix()] = path
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
