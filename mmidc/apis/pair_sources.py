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
may differ between the two images); the pair id is ``NAME``.
"""
import logging
import os.path as osp
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

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
    """Pairs in a folder under the naming scheme of this module's doc."""
    root = Path(folder)
    if not root.is_dir():
        raise NotADirectoryError(f'not a folder: {folder}')
    subfolders = next(((b, a) for b, a in SUBFOLDERS
                       if (root / b).is_dir() and (root / a).is_dir()), None)
    if subfolders:
        befores = _images_by_stem((root / subfolders[0]).iterdir())
        afters = _images_by_stem((root / subfolders[1]).iterdir())
    else:
        befores, afters = {}, {}
        for path in root.iterdir():
            match = _SIDE.match(path.stem)
            if match and path.suffix.lower() in IMAGE_EXTENSIONS:
                side = befores if match['side'].lower() == 'before' else afters
                side[match['name']] = path
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
            f'B/) subfolders')
    return [PairRecord(n, str(befores[n]), str(afters[n])) for n in names]


def _images_by_stem(paths) -> dict:
    return {p.stem: p for p in paths
            if p.is_file() and p.suffix.lower() in IMAGE_EXTENSIONS}


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
